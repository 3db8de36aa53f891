package main

import (
	"fmt"
	"strings"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/eval"
)

// checkEvalCases refuses, naming the case file and field, a case the
// candidate config cannot run as recorded: an agent it does not have,
// messages for an agent that keeps no conversation, a recorded tool the
// agent lacks there, (with --unrecorded live) an agent
// with a tool a live call could write with (checkLive), or a judge it
// cannot run (checkJudge).
func checkEvalCases(cases []*eval.Case, cfg *config.File, configPath, unrecorded string) error {
	for _, c := range cases {
		if err := checkJudge(c, cfg, configPath); err != nil {
			return err
		}
		if !hasAgent(cfg, c.Agent) {
			return fmt.Errorf("%s: agent: %q is not an agent of %s", c.Path, c.Agent, configPath)
		}
		resolved, err := cfg.Resolve(c.Agent, nil)
		if err != nil {
			return fmt.Errorf("%s: agent: %s in %s: %w", c.Path, c.Agent, configPath, err)
		}
		if len(c.Messages) > 0 && resolved.Agent.Conversation == nil {
			return fmt.Errorf("%s: messages: agent %s keeps no conversation in %s: its run ends at its first output, so the case's %d later message(s) would not be sent; give the agent conversation: or take messages out",
				c.Path, c.Agent, configPath, len(c.Messages))
		}
		for i, t := range c.Tools {
			// An MCP server's tools are known once it is reached; its
			// calls are checked by the worker as in any run.
			if strings.Contains(t.Tool, "/") {
				continue
			}
			if _, ok := resolved.Tool(t.Tool); !ok {
				return fmt.Errorf("%s: tools[%d].tool: %s is not a tool of agent %s in %s", c.Path, i, t.Tool, c.Agent, configPath)
			}
		}
		if unrecorded != eval.UnrecordedLive {
			continue
		}
		if err := checkLive(c, resolved.Tools, configPath); err != nil {
			return err
		}
	}
	return nil
}

// checkLive refuses, for --unrecorded live, a case whose agent has a
// write tool, or a tool whose effect the config does not declare (read
// by default, but it may write: a POST, say): a live call could reach
// either.
func checkLive(c *eval.Case, tools []config.Tool, configPath string) error {
	for _, t := range tools {
		if t.Effect == config.EffectWrite {
			return fmt.Errorf("%s: agent %s has the write tool %s (%s): --unrecorded live calls tools for real, so it runs only agents without write tools; use --unrecorded error",
				c.Path, c.Agent, t.Name, configPath)
		}
	}
	for _, t := range tools {
		if t.EffectDefaulted {
			return fmt.Errorf("%s: agent %s has the tool %s, whose effect %s does not declare: --unrecorded live calls for real only tools declared effect: read; declare %s's effect (effect: read if it only reads) or use --unrecorded error",
				c.Path, c.Agent, t.Name, configPath, t.Name)
		}
	}
	return nil
}

// checkEvalSecrets refuses, naming the case file and field, a case
// holding one of secrets: a suite is shared and its cases are given to
// the model, and endpoints and secrets come only from the config.
func checkEvalSecrets(cases []*eval.Case, secrets []string) error {
	for _, c := range cases {
		if field := eval.FindSecret(c, secrets); field != "" {
			return fmt.Errorf("%s: %s holds the value of a secret environment variable; a case file never holds a secret: take it out", c.Path, field)
		}
	}
	return nil
}

// checkJudge refuses a judge case whose judge agent the config lacks, or
// has tools or handoffs: a judge answers from the text of its task alone,
// and a call of it would be off every recording; or keeps a conversation,
// whose run does not end with its output.
func checkJudge(c *eval.Case, cfg *config.File, configPath string) error {
	if !eval.IsJudged(c) {
		return nil
	}
	judge := c.Expect.Judge
	if !hasAgent(cfg, judge) {
		return fmt.Errorf("%s: expect.judge: %q is not an agent of %s", c.Path, judge, configPath)
	}
	resolved, err := cfg.Resolve(judge, nil)
	if err != nil {
		return fmt.Errorf("%s: expect.judge: %s in %s: %w", c.Path, judge, configPath, err)
	}
	if len(resolved.Tools) > 0 {
		return fmt.Errorf("%s: expect.judge: agent %s has tools (%s) in %s: a judge answers from the output alone; name an agent without tools",
			c.Path, judge, resolved.Tools[0].Name, configPath)
	}
	if resolved.Agent.CanHandOff() {
		return fmt.Errorf("%s: expect.judge: agent %s can hand off (a person, or handoffs) in %s: a judge answers on its own; name an agent without handoffs",
			c.Path, judge, configPath)
	}
	if resolved.Agent.Conversation != nil {
		return fmt.Errorf("%s: expect.judge: agent %s keeps a conversation in %s: its run would wait for a next message after its verdict; name an agent without conversation",
			c.Path, judge, configPath)
	}
	return nil
}

func hasAgent(cfg *config.File, name string) bool {
	for _, a := range cfg.Agents {
		if a.Name == name {
			return true
		}
	}
	return false
}
