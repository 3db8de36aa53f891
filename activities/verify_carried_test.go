package activities

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/config"
)

// runEvents answers the previous run's close event and the calling run's
// start event, which started with startInput.
type runEvents struct{ closed *historypb.HistoryEvent }

var startInput = &commonpb.Payloads{Payloads: []*commonpb.Payload{{Data: []byte(`{"continued": {}}`)}}}

func (r runEvents) GetWorkflowHistory(_ context.Context, _, _ string, _ bool, filter enumspb.HistoryEventFilterType) client.HistoryEventIterator {
	if filter == enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT {
		return &events{list: []*historypb.HistoryEvent{r.closed}}
	}
	return &events{list: []*historypb.HistoryEvent{{
		EventType:  enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
		Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{Input: startInput}},
	}}}
}

type events struct{ list []*historypb.HistoryEvent }

func (e *events) HasNext() bool { return len(e.list) > 0 && e.list[0] != nil }
func (e *events) Next() (*historypb.HistoryEvent, error) {
	ev := e.list[0]
	e.list = e.list[1:]
	return ev, nil
}

// Carried state is the engine's only when the previous run continued as new
// into the calling run; a cron run or a retry (whose previous run completed
// or failed) starts again from the starter's input and is refused.
func TestVerifyCarried(t *testing.T) {
	canWith := func(runID string, by enumspb.ContinueAsNewInitiator, input *commonpb.Payloads) *historypb.HistoryEvent {
		return &historypb.HistoryEvent{
			EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
			Attributes: &historypb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes{WorkflowExecutionContinuedAsNewEventAttributes: &historypb.WorkflowExecutionContinuedAsNewEventAttributes{
				NewExecutionRunId: runID, Initiator: by, Input: input,
			}},
		}
	}
	canInto := func(runID string, by enumspb.ContinueAsNewInitiator) *historypb.HistoryEvent {
		return canWith(runID, by, startInput)
	}
	other := &commonpb.Payloads{Payloads: []*commonpb.Payload{{Data: []byte(`{}`)}}}
	own := enumspb.CONTINUE_AS_NEW_INITIATOR_WORKFLOW
	for name, tc := range map[string]struct {
		closed *historypb.HistoryEvent
		want   string // "" accepted
	}{
		"continued as new into this run": {canInto(testRunID, own), ""},
		"continued as new into another":  {canInto("another-run", own), "continued as new into another run"},
		"initiator left unspecified":     {canInto(testRunID, enumspb.CONTINUE_AS_NEW_INITIATOR_UNSPECIFIED), ""},
		"followed by a cron run":         {canInto(testRunID, enumspb.CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE), "followed by a CronSchedule run"},
		"followed by a retry":            {canInto(testRunID, enumspb.CONTINUE_AS_NEW_INITIATOR_RETRY), "followed by a Retry run"},
		"a cron run":                     {&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED}, "ended as WorkflowExecutionCompleted"},
		"a retry":                        {&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED}, "ended as WorkflowExecutionFailed"},
		"no close event":                 {nil, "has no close event"},
		"a cron successor, unmarked":     {canWith(testRunID, enumspb.CONTINUE_AS_NEW_INITIATOR_UNSPECIFIED, nil), "not by continuing as new into it with this input"},
		"another input":                  {canWith(testRunID, own, other), "not by continuing as new into it with this input"},
	} {
		t.Run(name, func(t *testing.T) {
			acts := New(&config.File{}, nil)
			acts.history = runEvents{tc.closed}
			env := newActivityEnv(t, acts)
			_, err := env.ExecuteActivity(acts.VerifyCarried, "previous-run")
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			ae := requireClass(t, err, CarriedRefusedError, false)
			require.Contains(t, ae.Message(), tc.want)
		})
	}
}
