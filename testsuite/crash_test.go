package testsuite

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// bookingServer is a write tool that deduplicates by Idempotency-Key, as a
// real payment or booking API does: a key it has seen answers the recorded
// result without a second effect.
type bookingServer struct {
	mu       sync.Mutex
	effects  map[string]string // key -> confirmation
	requests int
	arrived  chan struct{}
}

func (b *bookingServer) handle(w http.ResponseWriter, r *http.Request, _ int) {
	key := r.Header.Get("Idempotency-Key")
	b.mu.Lock()
	b.requests++
	if conf, ok := b.effects[key]; ok {
		b.mu.Unlock()
		writeJSON(w, 200, map[string]string{"confirmation": conf, "replayed": "true"})
		return
	}
	b.mu.Unlock()
	select {
	case b.arrived <- struct{}{}:
	default:
	}
	// Slow enough for the test to kill the worker mid-call; the effect
	// happens whether or not the caller is still there.
	time.Sleep(1500 * time.Millisecond)
	b.mu.Lock()
	conf := fmt.Sprintf("C-%d", len(b.effects)+1)
	b.effects[key] = conf
	b.mu.Unlock()
	writeJSON(w, 200, map[string]string{"confirmation": conf})
}

// SIGKILL the worker process while a slow write tool runs; a new worker
// finishes the run with the same output, and the tool saw one effect.
//
// On the cluster it takes over 30 s: the killed worker's workflow task and
// write must time out on the server before the new worker takes them on.
func TestWorkerKilledDuringWriteCompletesWithOneEffect(t *testing.T) {
	t.Parallel()
	book := &bookingServer{effects: map[string]string{}, arrived: make(chan struct{}, 1)}
	tools := newToolServer(t, book.handle)
	model, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{"crash": func(req openaiRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) == 0 {
			return scriptedmodel.CallTurn("book", map[string]any{"flight": "UA1"})
		}
		res := scriptedmodel.LastToolResults(req)
		return scriptedmodel.CallsTurn(scriptedmodel.Call{Name: "final_output", Args: res[0].Content})
	}}, "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	defer model.Close()

	cfg := `
model: { base_url: "` + model.URL() + `", name: crash }
tools:
  - { name: book, effect: write, http: { url: "` + tools.URL + `/book", timeout: 3s }, retry: { initial_interval: 200ms } }
agents:
  - { name: booker, instructions: Book., tools: [book] }
`
	workers := newWorkerProcesses(t, cfg, "crash")
	first := workers.start()
	run := workers.run(workflows.AgentInput{Agent: "booker", Task: "book it"})

	select {
	case <-book.arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the booking call never reached the tool")
	}
	require.NoError(t, first.Process.Kill()) // SIGKILL, mid-call
	_ = first.Wait()
	workers.start()

	res := awaitResult(t, run, 90*time.Second)
	require.JSONEq(t, `{"confirmation":"C-1"}`, strings.Replace(string(res.Output), `,"replayed":"true"`, "", 1))

	book.mu.Lock()
	defer book.mu.Unlock()
	require.Len(t, book.effects, 1, "one effect for one call")
	require.GreaterOrEqual(t, book.requests, 2, "the call was retried after the crash")
	keys := map[string]bool{}
	for _, r := range tools.requests("/book") {
		keys[r.IdempotencyKey] = true
	}
	require.Len(t, keys, 1, "every attempt carried the same Idempotency-Key")
}

// workerProcess starts the real worker binary on queue with the config at
// path; it is killed when the test ends, and its log shown if the test
// failed.
// awaitResult waits at most within for a run's result, as a user's
// client would after a worker was killed and another started.
func awaitResult(t *testing.T, run client.WorkflowRun, within time.Duration) workflows.AgentResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var res workflows.AgentResult
	require.NoError(t, run.Get(ctx, &res))
	return res
}

// workerProcesses are unstuck-worker processes of one config on one new
// task queue, for the tests that kill a worker and start another.
type workerProcesses struct {
	t                 *testing.T
	bins, path, queue string
}

// newWorkerProcesses writes cfg for the workers and names the queue
// prefix-<nanoseconds>; no worker runs yet.
func newWorkerProcesses(t *testing.T, cfg, prefix string) *workerProcesses {
	path := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	return &workerProcesses{t: t, bins: binaries(t), path: path, queue: fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())}
}

// start starts one more worker process on the queue.
func (w *workerProcesses) start() *exec.Cmd { return workerProcess(w.t, w.bins, w.path, w.queue) }

// run starts an agent run on the queue, its workflow id the queue's name,
// bounded to 5 minutes.
func (w *workerProcesses) run(in workflows.AgentInput) client.WorkflowRun {
	run, err := serverClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
		ID: w.queue, TaskQueue: w.queue, WorkflowExecutionTimeout: 5 * time.Minute,
	}, workflows.WorkflowName, in)
	require.NoError(w.t, err)
	return run
}

func workerProcess(t *testing.T, bins, path, queue string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(bins, "unstuck-worker"), "--config", path, "--task-queue", queue)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+serverAddress)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("worker log:\n%s", logs.String())
		}
	})
	return cmd
}
