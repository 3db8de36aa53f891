package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/internal/termtext"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// waitResult waits for the run (following continue-as-new) and prints its
// outcome: the output on completion, the report when the agent stopped
// itself (exit 3), the error otherwise.
func waitResult(ctx context.Context, wr client.WorkflowRun, asJSON bool, stdout, stderr io.Writer) error {
	var res workflows.AgentResult
	err := wr.Get(ctx, &res)
	if err == nil {
		return printCompleted(res, asJSON, stdout, stderr)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("stopped waiting; the run goes on: `unstuck status %s`", wr.GetID())
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == signals.StoppedErrorType {
		return printStopped(appErr, asJSON, stdout)
	}
	return fmt.Errorf("run %s failed: %w", wr.GetID(), err)
}

func printCompleted(res workflows.AgentResult, asJSON bool, stdout, stderr io.Writer) error {
	if asJSON {
		if err := printJSON(stdout, res); err != nil {
			return err
		}
		// The summary is for people; stdout stays one JSON document.
		fmt.Fprintln(stderr, resultSummary(res))
		return nil
	}
	if err := printRawJSON(stdout, res.Output); err != nil {
		return err
	}
	fmt.Fprintln(stdout, resultSummary(res))
	return nil
}

// printStopped reports an AgentStopped failure; its details are the report.
func printStopped(appErr *temporal.ApplicationError, asJSON bool, stdout io.Writer) error {
	var report workflows.AgentResult
	if appErr.HasDetails() {
		if err := appErr.Details(&report); err != nil {
			return fmt.Errorf("agent stopped: %s (and its report could not be decoded: %v)", appErr.Message(), err)
		}
	}
	reason := report.Reason
	if reason == "" {
		reason = appErr.Message()
	}
	if asJSON {
		if err := printJSON(stdout, report); err != nil {
			return err
		}
		// Not silent: with stdout holding only JSON, the reason goes to
		// stderr as "unstuck: agent stopped: ...".
		return &exitError{code: exitStopped, err: fmt.Errorf("agent stopped: %s", reason)}
	}
	fmt.Fprintf(stdout, "agent stopped: %s\n", termtext.Visible(reason))
	if report.LastError != "" {
		fmt.Fprintf(stdout, "last error: %s\n", termtext.Visible(report.LastError))
	}
	fmt.Fprintln(stdout, "report:")
	if err := printJSON(stdout, report); err != nil {
		return err
	}
	return &exitError{code: exitStopped, err: fmt.Errorf("agent stopped: %s", reason), silent: true}
}

// resultSummary is one line on how the run went.
func resultSummary(res workflows.AgentResult) string {
	s := fmt.Sprintf("%s: agent=%s steps=%d generation=%d", orDash(res.Status), orDash(res.Agent), res.Steps, res.Generation)
	if len(res.HandoffPath) > 0 {
		s += " handoffs=" + oneLine(strings.Join(res.HandoffPath, "->"))
	}
	if n := len(res.Escalations) + res.EscalationsDropped; n > 0 {
		s += fmt.Sprintf(" escalations=%d", n) // the older ones are counted, not listed
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
