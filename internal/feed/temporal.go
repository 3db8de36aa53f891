package feed

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
)

// Run is a Source reading workflow WorkflowID on a Temporal client: its
// latest run, so a follower goes on across continue-as-new.
type Run struct {
	Client     client.Client
	WorkflowID string
	// QueryTimeout bounds each query (a worker must answer it).
	QueryTimeout time.Duration
}

// Changed reads the trace's nodes changed after a time, page by page.
func (r Run) Changed(ctx context.Context, after time.Time) ([]signals.Node, error) {
	var nodes []signals.Node
	page := signals.TracePage{ChangedAfter: &after}
	for {
		var tr signals.Trace
		if err := r.query(ctx, signals.QueryTrace, &tr, page); err != nil {
			return nil, err
		}
		nodes = append(nodes, tr.Nodes...)
		if tr.Next == "" {
			return nodes, nil
		}
		page.Since = tr.Next
	}
}

// Phase reads the run's phase.
func (r Run) Phase(ctx context.Context) (signals.Phase, error) {
	var st signals.Status
	err := r.query(ctx, signals.QueryStatus, &st)
	return st.Phase, err
}

// Ended says whether the latest run has closed, with its result (or the
// failure, as JSON text) when it has.
func (r Run) Ended(ctx context.Context) (bool, json.RawMessage, error) {
	desc, err := r.Client.DescribeWorkflowExecution(ctx, r.WorkflowID, "")
	if err != nil {
		return false, nil, err
	}
	info := desc.GetWorkflowExecutionInfo()
	if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return false, nil, nil
	}
	var res json.RawMessage
	if err := r.Client.GetWorkflow(ctx, r.WorkflowID, info.GetExecution().GetRunId()).Get(ctx, &res); err != nil {
		b, _ := json.Marshal(map[string]string{"status": info.GetStatus().String(), "error": err.Error()})
		return true, b, nil
	}
	return true, res, nil
}

// query asks one of the run's queries, asking again while it starts.
func (r Run) query(ctx context.Context, name string, out any, args ...any) error {
	for {
		qctx, cancel := context.WithTimeout(ctx, r.QueryTimeout)
		v, err := r.Client.QueryWorkflow(qctx, r.WorkflowID, "", name, args...)
		cancel()
		if err == nil {
			return v.Get(out)
		}
		if !strings.Contains(err.Error(), signals.RunStarting) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
