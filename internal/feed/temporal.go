package feed

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

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

// State describes the latest run: whether it closed (with its result, or
// the failure as JSON text), its mark (run id and history length), and
// the replies its model requests are writing (their heartbeat details).
func (r Run) State(ctx context.Context) (State, error) {
	desc, err := r.Client.DescribeWorkflowExecution(ctx, r.WorkflowID, "")
	if err != nil {
		return State{}, err
	}
	info := desc.GetWorkflowExecutionInfo()
	st := State{Mark: fmt.Sprintf("%s/%d", info.GetExecution().GetRunId(), info.GetHistoryLength())}
	if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		st.Live = liveReplies(desc.GetPendingActivities())
		return st, nil
	}
	st.Ended = true
	if err := r.Client.GetWorkflow(ctx, r.WorkflowID, info.GetExecution().GetRunId()).Get(ctx, &st.Result); err != nil {
		st.Result, _ = json.Marshal(map[string]string{"status": info.GetStatus().String(), "error": err.Error()})
	}
	return st, nil
}

// liveReplies are the texts the run's streaming model requests wrote so
// far, from their heartbeat details; details that are not a streamed
// reply's (a whole reply's wait, a run that names no node) are none.
func liveReplies(pending []*workflowpb.PendingActivityInfo) []Live {
	var out []Live
	for _, a := range pending {
		if a.GetActivityType().GetName() != signals.ModelActivity || a.GetHeartbeatDetails() == nil ||
			a.GetState() == enumspb.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED {
			// A request the run cancelled (a message or an edit cut it
			// short) is listed until it hears so: its text is not a reply.
			continue
		}
		var p signals.StreamProgress
		if converter.GetDefaultDataConverter().FromPayloads(a.GetHeartbeatDetails(), &p) != nil || p.Node == "" {
			continue
		}
		out = append(out, Live{Node: p.Node, Attempt: p.Attempt, Text: p.Text})
	}
	return out
}

// startBound bounds asking a run again while it starts: a run that has
// not resolved its agent by then waits for something that may not come.
const startBound = time.Minute

// query asks one of the run's queries, asking again while it starts
// (within startBound).
func (r Run) query(ctx context.Context, name string, out any, args ...any) error {
	deadline := time.Now().Add(startBound)
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
		if time.Now().After(deadline) {
			return fmt.Errorf("the run has been starting for %s and has not resolved its agent: is a worker polling its task queue, and can it reach its config's model and tools?", startBound)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
