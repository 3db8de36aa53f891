package console

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/mocks"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/unstuck-dev/unstuck/signals"
)

// The unit tests drive the console's handler over a mocked Temporal client
// (go.temporal.io/sdk/mocks); testsuite/console_test.go drives it over a
// real dev server and worker.

var anyCtx = mock.Anything

// testNow is the console's clock in the tests.
var testNow = time.Date(2024, 1, 15, 9, 30, 0, 0, time.UTC)

// newTestConsole is a console over a mocked client, without a token
// unless given one.
func newTestConsole(t *testing.T, token string) (*mocks.Client, http.Handler) {
	t.Helper()
	m := mocks.NewClient(t)
	h, err := New(m, Options{Namespace: "default", Token: token, Now: func() time.Time { return testNow }})
	require.NoError(t, err)
	return m, h
}

// jsonValue is a query answer as the server would send it: JSON.
type jsonValue struct{ raw []byte }

func (v jsonValue) HasValue() bool    { return len(v.raw) > 0 }
func (v jsonValue) Get(ptr any) error { return json.Unmarshal(v.raw, ptr) }

func mustJSON(t *testing.T, v any) jsonValue {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return jsonValue{raw: b}
}

// expectRun answers a run's status and trace queries.
func expectRun(t *testing.T, m *mocks.Client, id string, st signals.Status, tr signals.Trace) {
	m.On("QueryWorkflow", anyCtx, id, "", signals.QueryStatus).Return(mustJSON(t, st), nil)
	m.On("QueryWorkflow", anyCtx, id, "", signals.QueryTrace).Return(mustJSON(t, tr), nil)
}

// expectUpdate expects one update, records its options, and answers with
// answer (as over the wire), or fails with err.
func expectUpdate(t *testing.T, m *mocks.Client, opts *client.UpdateWorkflowOptions, answer any, err error) {
	h := mocks.NewWorkflowUpdateHandle(t)
	h.On("Get", mock.Anything, mock.Anything).Return(func(_ context.Context, ptr any) error {
		if err != nil {
			return err
		}
		return mustJSON(t, answer).Get(ptr)
	}).Once()
	m.On("UpdateWorkflow", anyCtx, mock.Anything).
		Run(func(args mock.Arguments) { *opts = args.Get(1).(client.UpdateWorkflowOptions) }).
		Return(h, nil).Once()
}

// execution is a run as the visibility store lists it.
func execution(t *testing.T, id, agent, phase string) *workflowpb.WorkflowExecutionInfo {
	t.Helper()
	attr := func(s string) *commonpb.Payload {
		p, err := converter.GetDefaultDataConverter().ToPayload(s)
		require.NoError(t, err)
		return p
	}
	return &workflowpb.WorkflowExecutionInfo{
		Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "r-" + id},
		Status:    enums.WORKFLOW_EXECUTION_STATUS_RUNNING,
		StartTime: timestamppb.New(testNow.Add(-5 * time.Minute)),
		SearchAttributes: &commonpb.SearchAttributes{IndexedFields: map[string]*commonpb.Payload{
			signals.AttrAgentName: attr(agent), signals.AttrAgentPhase: attr(phase),
		}},
	}
}

// get serves a GET, as a browser on this machine sends it, and answers
// the recorder.
func get(h http.Handler, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8234"+target, nil))
	return w
}

// post serves a form POST, as htmx sends it.
func post(h http.Handler, target string, form url.Values) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8234"+target, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("HX-Request", "true")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func notFound() error { return serviceerror.NewNotFound("workflow not found") }
