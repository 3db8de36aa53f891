package activities

import (
	"context"
	"fmt"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"
)

// CarriedRefusedError is the application error type of carried state that
// did not come from the run's own continue-as-new.
const CarriedRefusedError = "CarriedRefused"

// HistoryReader is the part of the Temporal client that reads a run's
// events; the Temporal client has it.
type HistoryReader interface {
	GetWorkflowHistory(ctx context.Context, workflowID, runID string, isLongPoll bool, filterType enumspb.HistoryEventFilterType) client.HistoryEventIterator
}

// VerifyCarried confirms, from the server's own record, that the calling
// run was made by its previous run's own continue-as-new: that run, a run
// of this same workflow type, closed by continuing as new into this very
// run (or into the run this one is a reset of) with exactly the input this
// run started with. Temporal closes a run the same way when a cron schedule
// or a retry starts the next one, and those start again from the starter's
// own input, without carrying it in the close event: carried state such an
// input holds was never the engine's and is refused. The previous run, of
// this type, was verified the same way when it started, so by induction
// every link of the chain was made by the engine.
func (a *Activities) VerifyCarried(ctx context.Context, previousRunID string) error {
	wf := activity.GetInfo(ctx).WorkflowExecution
	if a.history == nil {
		return temporal.NewNonRetryableApplicationError("cannot verify carried state: the worker has no Temporal client to read histories", CarriedRefusedError, nil)
	}
	// The three reads go out at once (a continued run waits for them
	// before its first step); their answers are judged in order.
	var (
		closed, started                    *historypb.HistoryEvent
		previousType                       string
		closedErr, startedErr, previousErr error
		wg                                 sync.WaitGroup
	)
	wg.Add(3)
	go func() { defer wg.Done(); closed, closedErr = a.closeEvent(ctx, wf.ID, previousRunID) }()
	go func() { defer wg.Done(); started, startedErr = a.firstEvent(ctx, wf.ID, wf.RunID) }()
	go func() { defer wg.Done(); previousType, previousErr = a.runType(ctx, wf.ID, previousRunID) }()
	wg.Wait()
	if closedErr != nil {
		return closedErr
	}
	if closed == nil {
		return refuseCarried("run %s has no close event", previousRunID)
	}
	if closed.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW {
		return refuseCarried("run %s ended as %s, not by continuing as new (a cron run or a retry starts again from the starter's input)",
			previousRunID, closed.GetEventType())
	}
	can := closed.GetWorkflowExecutionContinuedAsNewEventAttributes()
	if !ownInitiator(can.GetInitiator()) {
		return refuseCarried("run %s was followed by a %s run, not by continuing as new (a cron run or a retry starts again from the starter's input)",
			previousRunID, can.GetInitiator())
	}
	if startedErr != nil {
		return startedErr
	}
	start := started.GetWorkflowExecutionStartedEventAttributes()
	// A reset run is a copy of the run it resets, under a new run id.
	if into := can.GetNewExecutionRunId(); into != wf.RunID && into != start.GetOriginalExecutionRunId() {
		return refuseCarried("run %s continued as new into another run", previousRunID)
	}
	if can.GetInput() == nil || !proto.Equal(can.GetInput(), start.GetInput()) {
		return refuseCarried("run %s was followed by this run, not by continuing as new into it with this input (a cron run or a retry starts again from the starter's input)", previousRunID)
	}
	if previousErr != nil {
		return previousErr
	}
	own := start.GetWorkflowType().GetName()
	if previousType != own {
		return refuseCarried("run %s is a %s, not a %s: only the engine's own run may continue as new into it", previousRunID, previousType, own)
	}
	return nil
}

// runType is the workflow type of a run, from the server's record of it
// (a describe, which does not fetch the run's events), or its first event.
func (a *Activities) runType(ctx context.Context, workflowID, runID string) (string, error) {
	if a.describer != nil {
		d, err := a.describer.DescribeWorkflowExecution(ctx, workflowID, runID)
		if err != nil {
			return "", fmt.Errorf("describe run %s: %w", runID, err) // retried
		}
		return d.GetWorkflowExecutionInfo().GetType().GetName(), nil
	}
	first, err := a.firstEvent(ctx, workflowID, runID)
	if err != nil {
		return "", err
	}
	return first.GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName(), nil
}

// Describer reads a run's record without its events; the Temporal client
// has it.
type Describer interface {
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
}

// closeEvent is the event that closed a run (nil: none yet).
func (a *Activities) closeEvent(ctx context.Context, workflowID, runID string) (*historypb.HistoryEvent, error) {
	it := a.history.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	var closed *historypb.HistoryEvent
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("read the close event of run %s: %w", runID, err) // retried
		}
		closed = ev
	}
	return closed, nil
}

// firstEvent is the first event of a run: its start, with its input.
func (a *Activities) firstEvent(ctx context.Context, workflowID, runID string) (*historypb.HistoryEvent, error) {
	it := a.history.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return nil, fmt.Errorf("run %s has no events", runID) // retried
	}
	ev, err := it.Next()
	if err != nil {
		return nil, fmt.Errorf("read the start of run %s: %w", runID, err)
	}
	return ev, nil
}

// ownInitiator: the workflow's own continue-as-new (servers record it as
// workflow, or leave it unspecified); cron and retry are not.
func ownInitiator(i enumspb.ContinueAsNewInitiator) bool {
	return i == enumspb.CONTINUE_AS_NEW_INITIATOR_WORKFLOW || i == enumspb.CONTINUE_AS_NEW_INITIATOR_UNSPECIFIED
}

func refuseCarried(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError("carried state refused: "+fmt.Sprintf(format, args...), CarriedRefusedError, nil)
}
