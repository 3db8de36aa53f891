package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/unstuck-dev/unstuck/app"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
)

// BadInputError is an input that is no history this build can replay:
// not a history at all, or one of a workflow type it does not register.
// Nothing of it was replayed.
type BadInputError struct{ Why string }

func (e *BadInputError) Error() string { return e.Why }

func badInput(format string, args ...any) error {
	return &BadInputError{Why: fmt.Sprintf(format, args...)}
}

// ReadHistory reads one workflow history as JSON: the project's recorded
// histories and `temporal workflow show -o json` are both the history
// proto's JSON ({"events": [...]}). Whether it is a history this build
// replays is Check's.
func ReadHistory(r io.Reader) (*historypb.History, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	hist, err := client.HistoryFromJSON(bytes.NewReader(data), client.HistoryJSONOptions{})
	if err != nil {
		return nil, badInput("not a workflow history: %v", err)
	}
	if len(hist.GetEvents()) == 0 && !looksLikeHistory(data) {
		return nil, badInput(`not a workflow history: a history is JSON with "events" (temporal workflow show -o json)`)
	}
	return hist, nil
}

// looksLikeHistory is whether data is a JSON object with an "events" key:
// the SDK's reader discards unknown fields, so any other JSON object
// reads as an empty history.
func looksLikeHistory(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, ok := top["events"]
	return ok
}

// Check says whether hist is a whole history of a workflow type this
// build registers: it starts with WorkflowExecutionStarted, as the
// replayer needs, and names its type there.
func Check(hist *historypb.History) error {
	evs := hist.GetEvents()
	if len(evs) == 0 {
		return badInput("not a workflow history: it has no events")
	}
	if evs[0].GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED {
		return badInput("not a whole workflow history: its first event is %s (event %d), a history starts with WorkflowExecutionStarted",
			evs[0].GetEventType(), evs[0].GetEventId())
	}
	typ := evs[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName()
	if known := app.WorkflowTypes(); !slices.Contains(known, typ) {
		return badInput("a history of workflow type %q; this build replays %s", typ, strings.Join(known, ", "))
	}
	return nil
}

// Bad answers the BadInputError in err, if there is one.
func Bad(err error) (*BadInputError, bool) {
	var bad *BadInputError
	return bad, errors.As(err, &bad)
}
