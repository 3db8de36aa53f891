package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/internal/child"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// followRun waits for a run's result while printing each trace node as it
// appears or changes, so the demo shows progress as it happens.
func followRun(ctx context.Context, out io.Writer, c client.Client, run client.WorkflowRun, worker *child.Process) (*workflows.AgentResult, error) {
	done := make(chan error, 1)
	var res workflows.AgentResult
	go func() { done <- run.Get(ctx, &res) }()

	shown := map[string]signals.NodeStatus{}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			printNewNodes(ctx, out, c, run.GetID(), run.GetRunID(), shown, nil)
			if err != nil {
				return nil, describeRunError(err)
			}
			return &res, nil
		case <-tick.C:
			if worker.HasExited() {
				return nil, fmt.Errorf("the worker exited: %s", exitedText(worker))
			}
			printNewNodes(ctx, out, c, run.GetID(), run.GetRunID(), shown, nil)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// printNewNodes prints the nodes of a run (runID "": the latest run of id)
// that are new or have changed status since shown, except running ones,
// each followed by after(node) when after is set.
func printNewNodes(ctx context.Context, out io.Writer, c client.Client, id, runID string, shown map[string]signals.NodeStatus, after func(signals.Node)) {
	tr, err := queryTrace(ctx, c, id, runID)
	if err != nil {
		return
	}
	for _, n := range tr.Nodes {
		if shown[n.ID] == n.Status {
			continue
		}
		shown[n.ID] = n.Status
		if n.Status == signals.StatusRunning {
			continue // shown when it settles
		}
		what := string(n.Kind)
		if n.Tool != "" {
			what += " " + n.Tool
		}
		width := 100
		if n.Kind == signals.KindEdit || n.Kind == signals.KindHandoff {
			width = 300 // who changed what, and what it invalidated; who handed to whom: all of it
		}
		fmt.Fprintf(out, "  %-4s %-22s %-10s %s\n", n.ID, what, n.Status, policies.ClipText(oneLine(nodeDetail(n)), width))
		if after != nil {
			after(n)
		}
	}
}

func queryTrace(ctx context.Context, c client.Client, id, runID string) (signals.Trace, error) {
	return runmsg.ReadTrace(ctx, func(ctx context.Context, out *signals.Trace, args ...any) error {
		v, err := c.QueryWorkflow(ctx, id, runID, signals.QueryTrace, args...)
		if err != nil {
			return err
		}
		return v.Get(out)
	})
}

// describeRunError turns an AgentStopped failure into its reason.
func describeRunError(err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == signals.StoppedErrorType {
		var rep workflows.AgentResult
		if app.Details(&rep) == nil {
			return fmt.Errorf("agent stopped: %s (last error: %s)", rep.Reason, rep.LastError)
		}
	}
	return err
}

func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "  ", "  ") != nil {
		return "  " + string(raw)
	}
	return "  " + b.String()
}

// nodeDetail is one line of what a node did, in the words of its kind.
func nodeDetail(n signals.Node) string {
	if n.Error != "" {
		return "error: " + n.Error
	}
	switch n.Kind {
	case signals.KindCall:
		detail := string(n.Args)
		if len(n.Output) > 0 {
			detail += " → " + string(n.Output)
		}
		if n.ReusedFrom != "" {
			detail = "answered from the effect ledger (the result of " + n.ReusedFrom + "): " + detail
		}
		return detail
	case signals.KindRequest:
		var reply struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Name string `json:"name"`
				Args string `json:"args"`
			} `json:"tool_calls"`
		}
		if json.Unmarshal(n.Output, &reply) != nil || len(reply.ToolCalls) == 0 {
			return reply.Content
		}
		var calls []string
		for _, c := range reply.ToolCalls {
			calls = append(calls, c.Name+c.Args)
		}
		detail := "the model calls " + strings.Join(calls, ", ")
		if reply.Content != "" {
			detail = fmt.Sprintf("%q; %s", reply.Content, detail)
		}
		return detail
	case signals.KindEdit:
		var out struct {
			Invalidated []string `json:"invalidated"`
		}
		_ = json.Unmarshal(n.Output, &out)
		detail := fmt.Sprintf("%s by %s: %s → %s", strings.Join(n.Parents, ","), orDash(n.By), editedText(n.Before), editedText(n.After))
		if len(out.Invalidated) > 0 {
			detail += "; invalidated " + strings.Join(out.Invalidated, ", ")
		}
		return detail
	case signals.KindHandoff:
		to := n.To
		switch {
		case n.Status == signals.StatusPending:
			to = "(choosing)"
		case to == "":
			to = "nobody"
		}
		detail := fmt.Sprintf("%s -> %s, reason %s", n.From, to, orDash(n.Reason))
		if len(n.Refused) > 0 {
			var names []string
			for _, r := range n.Refused {
				names = append(names, r.Agent)
			}
			detail += "; refused " + strings.Join(names, ", ")
		}
		return detail
	case signals.KindRepair:
		var rep struct {
			Repairs []struct {
				Strategy string `json:"strategy"`
				Path     string `json:"path"`
				Before   any    `json:"before"`
				After    any    `json:"after"`
			} `json:"repairs"`
		}
		_ = json.Unmarshal(n.Output, &rep)
		var parts []string
		for _, r := range rep.Repairs {
			parts = append(parts, fmt.Sprintf("%s %s: %v → %v", r.Strategy, r.Path, r.Before, r.After))
		}
		return "repaired without a model: " + strings.Join(parts, "; ")
	}
	return string(n.Output)
}

// editedText is an edit's before or after: a request's thought as text,
// anything else as JSON.
func editedText(raw json.RawMessage) string {
	var reply struct {
		Content *string `json:"content"`
	}
	if json.Unmarshal(raw, &reply) == nil && reply.Content != nil {
		return fmt.Sprintf("%q", *reply.Content)
	}
	return compactJSON(raw)
}
