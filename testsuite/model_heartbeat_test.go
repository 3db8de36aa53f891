package testsuite

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// SIGKILL the worker while a whole-reply model request waits for a slow
// model (its timeout the default 2 minutes): the request heartbeats, so
// Temporal finds the worker dead in the heartbeat timeout and retries the
// request on a new worker, and the run completes there, without waiting
// out the model's timeout (2 min 15 s). The history says why the request
// was retried: a heartbeat timeout.
func TestWorkerKilledDuringAModelRequestIsFoundByItsHeartbeat(t *testing.T) {
	t.Parallel()
	var firsts atomic.Int32
	model, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{"thinker": func(req openaiRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) == 0 && firsts.Add(1) == 1 {
			turn := scriptedmodel.CallTurn("final_output", map[string]any{"attempt": 1})
			turn.Delay = 5 * time.Minute // the worker dies in here
			return turn
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"attempt": int(firsts.Load())})
	}}, "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	defer model.Close()

	cfg := `
model: { base_url: "` + model.URL() + `", name: thinker }
agents:
  - { name: thinker, instructions: Think., tools: [] }
`
	workers := newWorkerProcesses(t, cfg, "model-heartbeat")
	first := workers.start()
	run := workers.run(workflows.AgentInput{Agent: "thinker", Task: "think long"})

	require.Eventually(t, func() bool { return firsts.Load() == 1 }, 30*time.Second, 50*time.Millisecond,
		"the model request reached the model")
	// Let a heartbeat reach the server, so the kill is found by a missed
	// heartbeat rather than by the first one never coming.
	time.Sleep(3 * time.Second)
	require.NoError(t, first.Process.Kill())
	_ = first.Wait()
	workers.start()

	// Without the heartbeat the retry would come after the request's
	// start-to-close timeout (2 min 15 s): well past this deadline.
	res := awaitResult(t, run, 90*time.Second)
	require.Equal(t, "completed", res.Status)
	require.JSONEq(t, `{"attempt": 2}`, string(res.Output), "the second attempt answered")

	var heartbeat time.Duration
	var retriedFor enums.TimeoutType
	forEachEvent(t, run, func(ev *historypb.HistoryEvent) {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a.GetActivityType().GetName() == "CallModel" && heartbeat == 0 {
			heartbeat = a.GetHeartbeatTimeout().AsDuration()
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a.GetAttempt() == 2 {
			retriedFor = a.GetLastFailure().GetTimeoutFailureInfo().GetTimeoutType()
		}
	})
	require.Equal(t, 10*time.Second, heartbeat, "the model request's heartbeat timeout")
	require.Equal(t, enums.TIMEOUT_TYPE_HEARTBEAT, retriedFor, "the request was retried for its missed heartbeat")
	recordAndReplay(t, run, "model_heartbeat")
}
