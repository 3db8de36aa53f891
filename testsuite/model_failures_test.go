package testsuite

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A model endpoint that fails for a while: the model activity retries with
// backoff, `describe` shows the pending activity's last failure, and the
// run completes once the endpoint answers again.
func TestModelOutageIsRetriedAndVisible(t *testing.T) {
	t.Parallel()
	cfg := strings.Replace(travelConfig, "name: travel-demo }",
		"name: travel-demo, retry: { initial_interval: 1s, backoff: 1.0, max_attempts: 20 } }", 1)
	s := newStack(t, cfg, scriptedmodel.Scenarios())
	s.model.FailNext(3, 503)
	run := s.start(workflows.AgentInput{Agent: "travel", Task: "Book NYC to LAX on 2024-01-15 for me"})

	var lastFailure string
	require.Eventually(t, func() bool {
		desc, err := s.client.DescribeWorkflowExecution(context.Background(), run.GetID(), run.GetRunID())
		if err != nil || len(desc.PendingActivities) == 0 {
			return false
		}
		pa := desc.PendingActivities[0]
		if pa.GetLastFailure() == nil {
			return false
		}
		lastFailure = pa.GetLastFailure().GetMessage()
		return pa.GetActivityType().GetName() == "CallModel" && pa.GetAttempt() >= 2
	}, 20*time.Second, 100*time.Millisecond)
	require.Contains(t, lastFailure, "HTTP 503")

	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", res.Status)
	require.Equal(t, 3+3, s.model.RequestCount(), "three failed attempts, then the three turns")
}

// A model that never answers, whose outage.max_wait ends before its
// breaker would let a request through: once the retry policy is exhausted
// the failure is in the trace and in status.last_error, saying the outage
// was waited out, and the run stops with a report instead of hanging.
func TestModelDownStopsWithTheErrorInTraceAndStatus(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "http://127.0.0.1:1/v1", name: nowhere, retry: { initial_interval: 100ms, max_attempts: 2 }, outage: { max_wait: 1s } }
tools:
  - { name: echo, builtin: echo }
agents:
  - { name: lonely, instructions: Answer., tools: [echo] }
`
	s := newStack(t, cfg, nil)
	run := s.start(workflows.AgentInput{Agent: "lonely", Task: "hello?"})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Equal(t, "stopped", rep.Status)
	require.Contains(t, rep.Reason, "model request failed")
	require.Contains(t, rep.LastError, `model "nowhere" at http://127.0.0.1:1/v1`)
	require.Contains(t, rep.LastError, "the run waited out this outage for 0s, and outage.max_wait (1s) ends before")

	st := s.status(run)
	require.Equal(t, signals.PhaseStopped, st.Phase)
	require.Equal(t, rep.LastError, st.LastError)
	reqs := nodesOf(s.trace(run), signals.KindRequest)
	require.Len(t, reqs, 1)
	require.Equal(t, signals.StatusFailed, reqs[0].Status)
	require.Equal(t, rep.LastError, reqs[0].Error)
	recordAndReplay(t, run, "model_down_stopped")
}

// A model reply naming an unknown tool or sending arguments that are not
// JSON does not break the run: each gets an error message and the model
// goes on.
func TestMalformedModelCallsBecomeErrorMessages(t *testing.T) {
	t.Parallel()
	script := func(req openaiRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) == 0 {
			return scriptedmodel.CallsTurn(
				scriptedmodel.Call{Name: "teleport", Args: `{"to":"LAX"}`},
				scriptedmodel.Call{Name: "search_flights", Args: `{"from": "NYC", "to": `},
			)
		}
		var errs []string
		for _, r := range scriptedmodel.LastToolResults(req) {
			if r.IsError() {
				errs = append(errs, r.Content)
			}
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"errors": errs})
	}
	cfg := strings.Replace(travelConfig, "name: travel-demo", "name: malformed", 1)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"malformed": script})
	run := s.start(workflows.AgentInput{Agent: "travel", Task: "go"})
	res, err := s.result(run)
	require.NoError(t, err)
	var out struct{ Errors []string }
	require.NoError(t, json.Unmarshal(res.Output, &out))
	require.Len(t, out.Errors, 2)
	require.Contains(t, out.Errors[0], `unknown tool \"teleport\"`)
	require.Contains(t, out.Errors[1], `arguments are not valid JSON`)
	calls := nodesOf(s.trace(run), signals.KindCall)
	require.Equal(t, signals.StatusFailed, calls[0].Status)
	require.Equal(t, signals.StatusFailed, calls[1].Status)
	require.JSONEq(t, `"{\"from\": \"NYC\", \"to\": "`, string(calls[1].Args), "the malformed text is kept as a string")
	recordAndReplay(t, run, "malformed_calls")
}

// The step ceiling stops a run that never ends, with a report.
func TestMaxStepsStopsARunThatNeverEnds(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: forever }
tools:
  - { name: echo, builtin: echo }
agents:
  - { name: looper, instructions: Loop., tools: [echo], policies: { max_steps: 4 } }
`
	forever := func(req openaiRequest) scriptedmodel.Turn {
		return scriptedmodel.CallTurn("echo", map[string]any{"i": scriptedmodel.AssistantTurns(req)})
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"forever": forever})
	run := s.start(workflows.AgentInput{Agent: "looper", Task: "never stop"})
	_, err := s.result(run)
	rep := stoppedReport(t, err)
	require.Equal(t, 4, rep.Steps)
	require.Contains(t, rep.Reason, "max_steps (4)")
	require.Equal(t, 4, s.model.RequestCount())
	recordAndReplay(t, run, "max_steps_stopped")
}

type openaiRequest = openai.ChatCompletionRequest
