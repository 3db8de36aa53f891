package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/internal/termtext"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

type chatOptions struct {
	join, id, taskQueue, by, task string
}

// chatInterval is how often a chat reads its run: a reply is read as it is
// written, so more often than `unstuck follow`'s default.
const chatInterval = 100 * time.Millisecond

// newChatCmd is `unstuck chat`: a conversation in the terminal.
func newChatCmd(c *cli) *cobra.Command {
	var o chatOptions
	cmd := &cobra.Command{
		Use:   "chat AGENT",
		Short: "Talk to a conversation agent in the terminal",
		Long: `Talk to an agent with conversation: in the terminal. Your first message starts
a run of AGENT (its task); each later one is the run's next message ("unstuck
say"). The reply is shown as the model writes it, each call the agent makes as
it settles, and a call waiting for approval asks you inline: type a to approve
it, r REASON to reject it.

In a terminal the line you type stays at the bottom and the conversation is
written above it, a line at a time. A message typed while the agent works is
handled by its double_text (see docs/conversations.md): the chat says when it
is answered, and marks a reply it cut short [cut]. With --task, the run's task
is that text and your first message goes with the start, in one call
(Temporal's Update-With-Start). Ctrl-D leaves the chat, not the run: it waits for the
next message until its idle_timeout; come back with --join WORKFLOW_ID, which
shows the conversation so far and goes on.`,
		Example: `  unstuck chat concierge
  unstuck chat concierge --id chat-ana --by ana
  unstuck chat --join chat-ana`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case o.join == "" && len(args) != 1:
				return usageErrorf("chat needs the agent to talk to (unstuck chat AGENT), or --join WORKFLOW_ID")
			case o.join != "" && len(args) != 0:
				return usageErrorf("--join goes on with a run's own agent: leave out %q", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			agent := ""
			if len(args) == 1 {
				agent = args[0]
			}
			return c.chat(cmd, o, agent)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.join, "join", "", "go on with this run's conversation instead of starting one")
	f.StringVar(&o.id, "id", "", "workflow id of the new run (default <agent>-<UTC timestamp>-<random hex>)")
	f.StringVar(&o.taskQueue, "task-queue", workflows.TaskQueue, "task queue the worker polls")
	f.StringVar(&o.by, "by", "", "who you are (kept in the trace with each message and decision)")
	f.StringVar(&o.task, "task", "", "the run's task (default: your first message, which then starts the run)")
	return cmd
}

// chatSession is one chat: the run, its view and what the user types.
type chatSession struct {
	tc    client.Client
	out   io.Writer
	by    string
	id    string
	view  *chatView
	lines <-chan string
}

func (c *cli) chat(cmd *cobra.Command, o chatOptions, agent string) error {
	ctx := cmd.Context()
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	return chatWith(ctx, tc, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o, agent)
}

// chatWith is a chat over a client that is connected: what the user types
// on in, the conversation on out (`unstuck chat`, `unstuck demo chat`).
func chatWith(ctx context.Context, tc client.Client, in io.Reader, out, errOut io.Writer, o chatOptions, agent string) error {
	s := &chatSession{tc: tc, out: out, by: o.by, id: o.join, view: newChatView(out)}
	prompt := chatPrompt
	if ct, ok := openChatTerminal(in, out); ok {
		defer ct.close()
		s.out, errOut, prompt = ct.t, ct.t, "" // the terminal shows the prompt
		s.view = newChatView(ct.t)
		s.view.live, s.view.width = true, ct.width
		s.lines = ct.lines()
	} else {
		s.lines = readLines(in)
	}
	if s.id == "" {
		fmt.Fprintf(s.out, "Talking to %s. Type a message and press Enter; Ctrl-D leaves.\n%s", agent, prompt)
		first, ok := s.nextLine(ctx)
		for ok && strings.TrimSpace(first) == "" {
			fmt.Fprint(s.out, prompt)
			first, ok = s.nextLine(ctx)
		}
		if !ok {
			return nil
		}
		if s.id = o.id; s.id == "" {
			var err error
			if s.id, err = newWorkflowID(agent); err != nil {
				return err
			}
		}
		if err := s.start(ctx, o, agent, first); err != nil {
			return err
		}
		fmt.Fprintf(errOut, "(run %s)\n", s.id)
	}
	return s.run(ctx)
}

// start starts the chat's run with the first message typed: its task, or,
// with --task, its first message, sent with the start in one call.
func (s *chatSession) start(ctx context.Context, o chatOptions, agent, first string) error {
	spec := startSpec{id: s.id, taskQueue: o.taskQueue, agent: agent}
	if o.task == "" {
		if _, err := startRun(ctx, s.tc, spec, workflows.AgentInput{Agent: agent, Task: first, By: o.by}); err != nil {
			return err
		}
		s.view.typed = append(s.view.typed, first)
		return nil
	}
	in := workflows.AgentInput{Agent: agent, Task: o.task, By: o.by}
	_, res, err := startWithMessage(ctx, s.tc, spec, in, signals.MessageRequest{Text: first, Audit: signals.Audit{By: o.by}})
	if err != nil {
		return err
	}
	s.view.typed = append(s.view.typed, first)
	s.view.sent(*res)
	return nil
}

// run shows the run's events and sends what the user types, until the
// run ends or the user leaves.
// Ctrl-D leaves it, and so does Ctrl-C (ctx done).
func (s *chatSession) run(ctx context.Context) error {
	following, cancel := context.WithCancel(ctx)
	defer cancel()
	events, followed := s.follow(following)
	for {
		select {
		case e := <-events:
			s.view.show(e)
			if e.Type == feed.TypeEnd {
				return nil
			}
		case line, ok := <-s.lines:
			if !ok {
				return s.leave()
			}
			s.view.typedLine()
			s.typed(ctx, strings.TrimSpace(line))
		case <-ctx.Done():
			return s.leave()
		case err := <-followed:
			if ctx.Err() != nil {
				return s.leave()
			}
			return fmt.Errorf("follow %s: %w", s.id, err)
		}
	}
}

// leave leaves the chat, not the run.
func (s *chatSession) leave() error {
	s.view.finish()
	fmt.Fprintf(s.out, "(left the chat; the run waits for your next message: unstuck chat --join %s)\n", s.id)
	return nil
}

// nextLine is the next line typed; ok is false once the user left
// (Ctrl-D, Ctrl-C).
func (s *chatSession) nextLine(ctx context.Context) (line string, ok bool) {
	select {
	case line, ok = <-s.lines:
		return line, ok
	case <-ctx.Done():
		return "", false
	}
}

// follow gives the run's events until ctx is done, and then why the
// following ended.
func (s *chatSession) follow(ctx context.Context) (<-chan feed.Event, <-chan error) {
	events := make(chan feed.Event)
	followed := make(chan error, 1)
	go func() {
		src := feed.Run{Client: s.tc, WorkflowID: s.id, QueryTimeout: queryTimeout}
		followed <- feed.Follow(ctx, src, feed.Cursor{}, chatInterval, func(e feed.Event) error {
			select {
			case events <- e:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return events, followed
}

// typed acts on a line the user typed: the answer to the call waiting
// for approval, or the next message.
func (s *chatSession) typed(ctx context.Context, line string) {
	if line == "" {
		return
	}
	if call := s.view.waiting; call != nil {
		req, ok := approvalOf(line, call.ID, s.by)
		if !ok {
			fmt.Fprintf(s.out, "  %s waits for your answer first: type a to approve it, or r REASON to reject it\n", termtext.Visible(call.Tool))
			return
		}
		var res signals.ApproveResult
		if err := runmsg.Update(ctx, s.tc, s.id, "", signals.Approve, req, &res); err != nil {
			fmt.Fprintf(s.out, "  (not settled: %s)\n", termtext.Visible(err.Error()))
			return
		}
		s.view.waiting = nil
		return
	}
	res, err := s.say(ctx, line)
	if err != nil {
		fmt.Fprintf(s.out, "  (not sent: %s)\n", termtext.Visible(err.Error()))
		return
	}
	s.view.typed = append(s.view.typed, line)
	s.view.sent(res)
}

// say sends the message.
func (s *chatSession) say(ctx context.Context, text string) (signals.MessageResult, error) {
	req := signals.MessageRequest{Text: text, Audit: signals.Audit{By: s.by}}
	if err := req.Validate(); err != nil {
		return signals.MessageResult{}, err
	}
	var res signals.MessageResult
	err := runmsg.Update(ctx, s.tc, s.id, "", signals.Message, req, &res)
	return res, err
}

// approvalOf reads a typed answer to a call waiting for approval: a
// line that is only a (or y, yes, approve) approves it; r (or n, no,
// reject), alone or then a reason, rejects it. Anything else is not an
// answer: a sentence that happens to begin with "a" approves nothing.
func approvalOf(line, callID, by string) (signals.ApproveRequest, bool) {
	req := signals.ApproveRequest{CallID: callID, Audit: signals.Audit{By: by}}
	word, reason, _ := strings.Cut(line, " ")
	switch strings.ToLower(word) {
	case "a", "y", "yes", "approve":
		if strings.TrimSpace(reason) != "" {
			return req, false
		}
		req.Decision = signals.DecisionApprove
	case "r", "n", "no", "reject":
		req.Decision, req.Reason = signals.DecisionReject, strings.TrimSpace(reason)
	default:
		return req, false
	}
	return req, true
}

// readLines gives the lines read from r, closed at its end. A line of
// any length is given whole (the message then says if it is too long).
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				lines <- strings.TrimRight(line, "\r\n")
			}
			if err != nil {
				return
			}
		}
	}()
	return lines
}
