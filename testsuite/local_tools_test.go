package testsuite

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enums "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// localToolsConfig: a built-in that reads (local by default) and an HTTP
// tool marked local: true, retried fast.
const localToolsConfig = `
model: { base_url: "{{MODEL}}", name: both }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
  - name: quote
    http: { url: "{{TOOLS}}/quote", timeout: 2s }
    local: true
    retry: { initial_interval: 500ms, backoff: 1.0, max_interval: 500ms, max_attempts: 5 }
    parameters: { type: object }
agents:
  - { name: both, instructions: Look up and quote., tools: [lookup, quote] }
`

// bothTools (a test double) calls lookup and quote in one reply, then
// gives the output.
func bothTools(req openaiRequest) scriptedmodel.Turn {
	if scriptedmodel.AssistantTurns(req) > 0 {
		return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
	}
	return scriptedmodel.CallsTurn(scriptedmodel.NewCall("lookup", map[string]any{"q": 1}), scriptedmodel.NewCall("quote", map[string]any{"q": 2}))
}

// toolEvents counts a run's RunTool activities scheduled and its local
// activity markers.
func toolEvents(t *testing.T, run client.WorkflowRun) (scheduled, markers int) {
	forEachEvent(t, run, func(ev *historypb.HistoryEvent) {
		switch ev.GetEventType() {
		case enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			if ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == "RunTool" {
				scheduled++
			}
		case enums.EVENT_TYPE_MARKER_RECORDED:
			// The run's other local activity (ResolveAgent) is not a call.
			m := ev.GetMarkerRecordedEventAttributes()
			if m.GetMarkerName() == "LocalActivity" && bytes.Contains(m.GetDetails()["data"].GetPayloads()[0].GetData(), []byte(`"RunTool"`)) {
				markers++
			}
		}
	})
	return scheduled, markers
}

// On the real server and worker, both tools run as local activities: the
// history has a marker for each call and no RunTool activity, and the
// HTTP tool gets its idempotency key as from an activity.
func TestLocalToolsRunInTheWorkflowTask(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 200, map[string]any{"price": 42})
	})
	s := newStack(t, strings.ReplaceAll(localToolsConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{"both": bothTools})
	run := s.start(workflows.AgentInput{Agent: "both", Task: "quote it"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	scheduled, markers := toolEvents(t, run)
	require.Zero(t, scheduled, "no tool call went through an activity task")
	require.Equal(t, 2, markers)
	seen := tools.requests("/quote")
	require.Len(t, seen, 1)
	require.NotEmpty(t, seen[0].IdempotencyKey)
	recordAndReplay(t, run, "local_tools")
}

// A local call still running at the 10 s bound goes on as a normal
// activity, with the same idempotency key, and the run completes. (A tool
// failing fast is different: the worker's breaker opens after 5 failures,
// long before the bound, and the call fails as it would as an activity.)
func TestALocalToolPastItsBoundGoesOnAsAnActivity(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			select { // the first attempt hangs until the local bound ends it
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
			return
		}
		writeJSON(w, 200, map[string]any{"price": 42})
	})
	cfg := strings.NewReplacer("{{TOOLS}}", tools.URL, "timeout: 2s", "timeout: 10s").Replace(localToolsConfig)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"both": bothTools})
	run := s.start(workflows.AgentInput{Agent: "both", Task: "quote it"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	scheduled, markers := toolEvents(t, run)
	require.Equal(t, 1, scheduled, "the quote went on as an activity")
	require.Equal(t, 2, markers, "the lookup's result and the quote's timeout")
	seen := tools.requests("/quote")
	require.Len(t, seen, 2)
	require.Equal(t, seen[0].IdempotencyKey, seen[1].IdempotencyKey, "one call, one key")
	recordAndReplay(t, run, "local_tool_went_on")
}
