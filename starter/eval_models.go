package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/eval"
)

// modelDialTimeout bounds the check that a model's endpoint answers.
const modelDialTimeout = 3 * time.Second

// checkEvalModels refuses an eval whose agents (the cases' and their
// judges') cannot reach any of their models: a connection to each
// endpoint's host and port, no request, so no token is spent. Every run
// would otherwise wait the model's outage out until --timeout and be
// scored as a regression, when the eval could not run.
func checkEvalModels(cases []*eval.Case, cfg *config.File, configPath string) error {
	seen, dialed := map[string]bool{}, map[string]error{}
	for _, c := range cases {
		agents := []string{c.Agent}
		if c.Expect != nil {
			agents = append(agents, c.Expect.Judge)
		}
		for _, agent := range agents {
			if agent == "" || seen[agent] {
				continue
			}
			seen[agent] = true
			r, err := cfg.Resolve(agent, nil)
			if err != nil || !callsModel(r.Agent) {
				continue // refused elsewhere, or never asks a model
			}
			if err := oneAnswers(r.Model, dialed); err != nil {
				return fmt.Errorf("eval: the model of agent %s (%s in %s) %v, and nothing is scored: start it, or point --config at one that answers", agent, r.Model.Name, configPath, err)
			}
		}
	}
	return nil
}

// callsModel says whether an agent asks a model: every agent but a
// person and a graph without llm nodes.
func callsModel(a config.Agent) bool {
	if a.Kind == config.KindHuman {
		return false
	}
	if a.Graph == nil {
		return true
	}
	for _, n := range a.Graph.Nodes {
		if n.LLM {
			return true
		}
	}
	return false
}

// oneAnswers says why none of m's endpoints (its own, then its
// fallbacks', config.Model.At) takes a connection; nil when one does.
// dialed keeps each endpoint's answer, so agents that share one dial it
// once.
func oneAnswers(m config.Model, dialed map[string]error) error {
	var why []string
	for i := 0; i <= len(m.Fallbacks); i++ {
		u := m.At(i).BaseURL
		err, ok := dialed[u]
		if !ok {
			err = dialEndpoint(u)
			dialed[u] = err
		}
		if err == nil {
			return nil
		}
		why = append(why, fmt.Sprintf("%s (%v)", u, err))
	}
	return fmt.Errorf("does not answer at %s", strings.Join(why, ", nor at "))
}

// dialEndpoint connects to a base URL's host and port.
func dialEndpoint(base string) error {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return fmt.Errorf("not a URL")
	}
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	conn, err := net.DialTimeout("tcp", host, modelDialTimeout)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			return op.Err
		}
		return err
	}
	return conn.Close()
}
