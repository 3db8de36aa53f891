package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// toolActivity is the activity type of a tool call (Activities.RunTool).
const toolActivity = "RunTool"

// readHistory fills rec from a closed run's history: the input of its
// first event, how it ended (its result, a stopped run's report, or the
// failure) from its last, and the class of every tool activity that
// failed, by its call id, in it and in the generations it continued
// (a rollback's calls were made in the generation before it). The classes
// are the activities' own failure types: a trace node keeps only the
// message.
func readHistory(ctx context.Context, tc client.Client, workflowID, runID string, rec *eval.Recording) error {
	rec.Classes = map[string]string{}
	continued, err := readGeneration(ctx, tc, workflowID, runID, rec, true)
	for err == nil && continued != "" {
		continued, err = readGeneration(ctx, tc, workflowID, continued, rec, false)
	}
	return err
}

// readGeneration reads one generation's history into rec: the input from
// its first event when latest; an earlier one ends continued as new, so
// only its tool failures' classes are read. It answers the run id of the
// generation it continued, "" for the first.
func readGeneration(ctx context.Context, tc client.Client, workflowID, runID string, rec *eval.Recording, latest bool) (continued string, err error) {
	dc := converter.GetDefaultDataConverter()
	callIDs := map[int64]string{} // scheduled event id -> call id
	it := tc.GetWorkflowHistory(ctx, workflowID, runID, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	first := true
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return "", fmt.Errorf("read the history of %s (run %s): %w", workflowID, runID, err)
		}
		if first {
			first = false
			started := ev.GetWorkflowExecutionStartedEventAttributes()
			if started == nil {
				return "", fmt.Errorf("the history of %s (run %s) does not begin with its start", workflowID, runID)
			}
			continued = started.GetContinuedExecutionRunId()
			if latest {
				if err := decodeFirst(dc, started.GetInput(), &rec.Input); err != nil {
					return "", fmt.Errorf("the input of %s (run %s) is not an AgentInput: %w", workflowID, runID, err)
				}
			}
			continue
		}
		if err := readEvent(dc, ev, rec, callIDs); err != nil {
			return "", fmt.Errorf("%s (run %s), event %d: %w", workflowID, runID, ev.GetEventId(), err)
		}
	}
	return continued, nil
}

// readEvent reads one event after the first: a tool activity scheduled or
// failed, or the run's end.
func readEvent(dc converter.DataConverter, ev *historypb.HistoryEvent, rec *eval.Recording, callIDs map[int64]string) error {
	switch {
	case ev.GetActivityTaskScheduledEventAttributes() != nil:
		a := ev.GetActivityTaskScheduledEventAttributes()
		var req activities.ToolRequest
		if a.GetActivityType().GetName() == toolActivity && decodeFirst(dc, a.GetInput(), &req) == nil {
			callIDs[ev.GetEventId()] = req.CallID
		}
	case ev.GetActivityTaskFailedEventAttributes() != nil:
		a := ev.GetActivityTaskFailedEventAttributes()
		if id, ok := callIDs[a.GetScheduledEventId()]; ok {
			rec.Classes[id] = a.GetFailure().GetApplicationFailureInfo().GetType()
		}
	case ev.GetActivityTaskTimedOutEventAttributes() != nil:
		if id, ok := callIDs[ev.GetActivityTaskTimedOutEventAttributes().GetScheduledEventId()]; ok {
			rec.Classes[id] = "timeout"
		}
	case ev.GetWorkflowExecutionCompletedEventAttributes() != nil:
		var res workflows.AgentResult
		if err := decodeFirst(dc, ev.GetWorkflowExecutionCompletedEventAttributes().GetResult(), &res); err != nil {
			return fmt.Errorf("the result is not an AgentResult: %w", err)
		}
		rec.Result = &res
	case ev.GetWorkflowExecutionFailedEventAttributes() != nil:
		readFailure(ev.GetWorkflowExecutionFailedEventAttributes().GetFailure(), rec)
	case ev.GetWorkflowExecutionTerminatedEventAttributes() != nil:
		rec.Status, rec.Error = "terminated", ev.GetWorkflowExecutionTerminatedEventAttributes().GetReason()
	case ev.GetWorkflowExecutionCanceledEventAttributes() != nil:
		rec.Status = "canceled"
	case ev.GetWorkflowExecutionTimedOutEventAttributes() != nil:
		rec.Status, rec.Error = "timed_out", "the run went past its execution timeout"
	}
	return nil
}

// readFailure reads a failed run's end: a run that stopped itself
// (AgentStopped) has its report as the failure's details.
func readFailure(f *failurepb.Failure, rec *eval.Recording) {
	err := temporal.GetDefaultFailureConverter().FailureToError(f)
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == signals.StoppedErrorType {
		var res workflows.AgentResult
		if app.HasDetails() && app.Details(&res) == nil {
			rec.Result = &res
		}
		rec.Status = "stopped"
		rec.Error = strings.TrimSpace(strings.Join(nonEmpty(res.Reason, res.LastError), ": "))
		if rec.Error == "" {
			rec.Error = app.Message()
		}
		return
	}
	rec.Status, rec.Error = "failed", f.GetMessage()
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// decodeFirst decodes the first payload of ps into out.
func decodeFirst(dc converter.DataConverter, ps *commonpb.Payloads, out any) error {
	if len(ps.GetPayloads()) == 0 {
		return errors.New("no payload")
	}
	return dc.FromPayload(ps.GetPayloads()[0], out)
}
