package testsuite

import (
	"testing"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// stallConfig is a streaming agent whose model answers final_output, under
// stall deadlines of a second (the setting itself is under test).
const stallConfig = `
model:
  base_url: "{{MODEL}}"
  name: answers
  retry: { initial_interval: 100ms, max_attempts: 2 }
  stall: { first_byte: 1s, idle: 1s }
  fallbacks: [ { name: backup } ]
agents:
  - { name: patient, instructions: Answer., tools: [], stream_calls: true }
`

// stalledAttempts are the failures the run's history records of the
// model requests' earlier attempts, by the attempt that followed them.
func stalledAttempts(t *testing.T, run client.WorkflowRun) map[int32]string {
	t.Helper()
	out := map[int32]string{}
	forEachEvent(t, run, func(ev *historypb.HistoryEvent) {
		a := ev.GetActivityTaskStartedEventAttributes()
		if f := a.GetLastFailure(); f != nil {
			out[a.GetAttempt()] = f.GetApplicationFailureInfo().GetType() + ": " + f.GetMessage()
		}
	})
	return out
}

// The model holds the first attempt's connection open without a byte: the
// worker cuts it at first_byte, Temporal retries it, the retry answers
// and the run completes. The run's history says why the request was
// retried: ModelStalled, after the first_byte deadline.
func TestAStalledModelRequestIsCutAndTriedAgain(t *testing.T) {
	t.Parallel()
	s := newStack(t, stallConfig, map[string]scriptedmodel.Script{
		"answers": scriptedmodel.Sequence(scriptedmodel.CallTurn("final_output", map[string]any{"answer": 42})),
	})
	s.model.FailNextTurn(1, scriptedmodel.Turn{Fault: scriptedmodel.StreamStallsBeforeFirstByte})
	run := s.start(workflows.AgentInput{Agent: "patient", Task: "the answer?"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", res.Status)
	require.JSONEq(t, `{"answer": 42}`, string(res.Output))
	require.Equal(t, 2, s.model.RequestCount(), "the stalled attempt, then its retry")

	failures := stalledAttempts(t, run)
	require.Len(t, failures, 1)
	require.Contains(t, failures[2], activities.ModelStalledError+`: model "answers" at `)
	require.Contains(t, failures[2], "stalled: no byte of the reply 1s after the request was sent (stall.first_byte)")
	reqs := nodesOf(s.trace(run), signals.KindRequest)
	require.Len(t, reqs, 1)
	require.Equal(t, signals.StatusCompleted, reqs[0].Status)
	require.Empty(t, nodesOf(s.trace(run), signals.KindEscalation), "a stall retried is no fallback")
	recordAndReplay(t, run, "model_stalled_retried")
}

// A model that stalls in the middle of every reply: the worker cuts each
// attempt at idle, and once the retries are spent the run turns to its
// fallback model as for a model that is down (a stall is not fatal). The
// request's fallback node in the trace names the stall.
func TestAModelThatKeepsStallingFallsBack(t *testing.T) {
	t.Parallel()
	s := newStack(t, stallConfig, map[string]scriptedmodel.Script{
		"answers": func(openaiRequest) scriptedmodel.Turn {
			return scriptedmodel.Turn{Content: "thinking", Fault: scriptedmodel.StreamStallsAfterFirstChunk}
		},
		"backup": scriptedmodel.Sequence(scriptedmodel.CallTurn("final_output", map[string]any{"answer": 42})),
	})
	run := s.start(workflows.AgentInput{Agent: "patient", Task: "the answer?"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"answer": 42}`, string(res.Output))

	tr := s.trace(run)
	esc := nodesOf(tr, signals.KindEscalation)
	require.Len(t, esc, 1)
	require.JSONEq(t, `{"action": "model_fallback", "from": "answers", "to": "backup"}`, string(esc[0].Args))
	require.Contains(t, string(esc[0].Output), "stalled: no byte for 1s (stall.idle), after 1 chunks")
	reqs := nodesOf(tr, signals.KindRequest)
	require.Len(t, reqs, 1)
	require.Equal(t, []string{reqs[0].ID}, esc[0].Parents, "the fallback is the request's")
	failures := stalledAttempts(t, run)
	require.Len(t, failures, 1, "the second attempt of the model followed a stall; the backup's first none")
	require.Contains(t, failures[2], activities.ModelStalledError+`: model "answers" at `)
	require.Contains(t, failures[2], "stalled: no byte for 1s (stall.idle), after 1 chunks")
	recordAndReplay(t, run, "model_stalled_fallback")
}
