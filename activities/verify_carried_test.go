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

// runEvents answers the previous run's close and start events and the
// calling run's start event, which started with startInput.
type runEvents struct {
	closed       *historypb.HistoryEvent
	previousType string // "" the calling run's own type
	original     string // the calling run's original run id (a reset)
}

var startInput = &commonpb.Payloads{Payloads: []*commonpb.Payload{{Data: []byte(`{"continued": {}}`)}}}

// testWorkflowType is the type the test activity environment reports.
const testWorkflowType = "default-test-workflow-type-name"

func (r runEvents) GetWorkflowHistory(_ context.Context, _, runID string, _ bool, filter enumspb.HistoryEventFilterType) client.HistoryEventIterator {
	if filter == enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT {
		return &events{list: []*historypb.HistoryEvent{r.closed}}
	}
	start := &historypb.WorkflowExecutionStartedEventAttributes{WorkflowType: &commonpb.WorkflowType{Name: testWorkflowType}}
	if runID == testRunID {
		start.Input, start.OriginalExecutionRunId = startInput, r.original
	} else if r.previousType != "" {
		start.WorkflowType.Name = r.previousType
	}
	return &events{list: []*historypb.HistoryEvent{{
		EventType:  enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
		Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: start},
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
		events runEvents
	}{
		"continued as new into this run":          {canInto(testRunID, own), "", runEvents{}},
		"continued as new into another":           {canInto("another-run", own), "continued as new into another run", runEvents{}},
		"initiator left unspecified":              {canInto(testRunID, enumspb.CONTINUE_AS_NEW_INITIATOR_UNSPECIFIED), "", runEvents{}},
		"followed by a cron run":                  {canInto(testRunID, enumspb.CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE), "followed by a CronSchedule run", runEvents{}},
		"followed by a retry":                     {canInto(testRunID, enumspb.CONTINUE_AS_NEW_INITIATOR_RETRY), "followed by a Retry run", runEvents{}},
		"a cron run":                              {&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED}, "ended as WorkflowExecutionCompleted", runEvents{}},
		"a retry":                                 {&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED}, "ended as WorkflowExecutionFailed", runEvents{}},
		"no close event":                          {nil, "has no close event", runEvents{}},
		"a reset of the run continued into":       {canInto("the-run-before-reset", own), "", runEvents{original: "the-run-before-reset"}},
		"another workflow type continued into it": {canInto(testRunID, own), "is a Evil, not a " + testWorkflowType, runEvents{previousType: "Evil"}},
		"a cron successor, unmarked":              {canWith(testRunID, enumspb.CONTINUE_AS_NEW_INITIATOR_UNSPECIFIED, nil), "not by continuing as new into it with this input", runEvents{}},
		"another input":                           {canWith(testRunID, own, other), "not by continuing as new into it with this input", runEvents{}},
	} {
		t.Run(name, func(t *testing.T) {
			acts := New(&config.File{}, nil)
			ev := tc.events
			ev.closed = tc.closed
			acts.history = ev
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
