package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// followRun waits for a run's result while printing each trace node as it
// appears or changes, so the demo shows progress as it happens.
func followRun(ctx context.Context, out io.Writer, c client.Client, run client.WorkflowRun, worker *process) (*workflows.AgentResult, error) {
	done := make(chan error, 1)
	var res workflows.AgentResult
	go func() { done <- run.Get(ctx, &res) }()

	shown := map[string]string{}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			printNewNodes(ctx, out, c, run, shown)
			if err != nil {
				return nil, describeRunError(err)
			}
			return &res, nil
		case <-tick.C:
			if worker.exited() {
				return nil, fmt.Errorf("the worker exited: %s", worker.tail())
			}
			printNewNodes(ctx, out, c, run, shown)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func printNewNodes(ctx context.Context, out io.Writer, c client.Client, run client.WorkflowRun, shown map[string]string) {
	tr, err := queryTrace(ctx, c, run.GetID(), run.GetRunID())
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
		what := n.Kind
		if n.Tool != "" {
			what += " " + n.Tool
		}
		detail := string(n.Output)
		if n.Error != "" {
			detail = "error: " + n.Error
		} else if n.Kind == signals.KindCall {
			detail = string(n.Args) + " → " + detail
		}
		fmt.Fprintf(out, "  %-4s %-22s %-10s %s\n", n.ID, what, n.Status, truncate(oneLine(detail), 100))
	}
}

func queryTrace(ctx context.Context, c client.Client, id, runID string) (signals.Trace, error) {
	var tr signals.Trace
	v, err := c.QueryWorkflow(ctx, id, runID, signals.QueryTrace)
	if err != nil {
		return tr, err
	}
	return tr, v.Get(&tr)
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
