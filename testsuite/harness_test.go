package testsuite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The server is shared by every test of the package: starting one costs
// seconds, and tests isolate themselves by task queue and ids. It is the
// Temporal CLI's dev server, or, with UNSTUCK_CLUSTER set (make
// test-cluster, make test's cluster part), a real cluster on PostgreSQL
// as docker-compose.yml deploys it (server_test.go).
// suggestContinueAsNewEvents is the servers' continue-as-new hint.
const suggestContinueAsNewEvents = 150

var (
	serverClient  client.Client
	serverAddress string
	temporalBin   string
	repoRoot      string
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	_, file, _, _ := runtime.Caller(0)
	repoRoot = filepath.Dir(filepath.Dir(file))
	temporalBin = os.Getenv("UNSTUCK_TEMPORAL_BIN")
	if temporalBin == "" {
		temporalBin = filepath.Join(repoRoot, "bin", "temporal")
	}
	if _, err := os.Stat(temporalBin); err != nil {
		fmt.Fprintf(os.Stderr, "testsuite: the Temporal CLI is not at %s: run `make test` (it installs it) or set UNSTUCK_TEMPORAL_BIN\n", temporalBin)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	stop, err := startServer(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testsuite: %v\n", err)
		return 1
	}
	// The worker registers the search attributes it needs, as in production.
	if err := app.EnsureSearchAttributes(ctx, serverClient, "default"); err != nil {
		fmt.Fprintf(os.Stderr, "testsuite: %v\n", err)
		serverClient.Close()
		_ = stop()
		return 1
	}
	code := m.Run()
	serverClient.Close()
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testsuite: stop the server: %v\n", err)
	}
	return code
}

var queueSeq atomic.Int64

// raceDetector is set when the tests run with -race (race_test.go).
var raceDetector bool

// workerOptions are the options of the tests' in-process workers. Under
// the race detector, workflow code runs several times slower, and with
// many tests at once on a small machine a workflow task can go past the
// SDK's deadlock detection (1 s without yielding) with no deadlock at all.
func workerOptions() worker.Options {
	if raceDetector {
		return worker.Options{DeadlockDetectionTimeout: 10 * time.Second}
	}
	return worker.Options{}
}

// stack is one test's world: a scripted model server, a worker on its own
// task queue running the given config, and helpers to start runs.
type stack struct {
	t      *testing.T
	model  *scriptedmodel.Server
	queue  string
	client client.Client
	cfg    *config.File

	mu      sync.Mutex
	started []string // workflow ids, terminated when the test ends
}

// newStack starts the scripted model with scripts (the test double for the
// model) and an in-process worker over the YAML config, where {{MODEL}} is
// replaced by the scripted server's URL.
func newStack(t *testing.T, yaml string, scripts map[string]scriptedmodel.Script) *stack {
	t.Helper()
	return newStackWith(t, yaml, scripts)
}

// newStackWith is newStack with options of the scripted model server.
func newStackWith(t *testing.T, yaml string, scripts map[string]scriptedmodel.Script, opts ...scriptedmodel.Option) *stack {
	t.Helper()
	s, _ := unservedStack(t, yaml, scripts, opts...)
	ws, err := app.NewWorkers(serverClient, s.cfg, s.queue, workerOptions())
	require.NoError(t, err)
	require.NoError(t, ws.Start())
	t.Cleanup(ws.Stop)
	return s
}

// unservedStack is a stack with its scripted model and config, and a task
// queue no worker serves yet; yaml is the config with the model's URL.
func unservedStack(t *testing.T, yaml string, scripts map[string]scriptedmodel.Script, opts ...scriptedmodel.Option) (s *stack, served string) {
	t.Helper()
	model := startModel(t, scripts, "", opts...)
	yaml = strings.ReplaceAll(yaml, "{{MODEL}}", model.URL())
	cfg, err := config.Parse(t.Name()+".yaml", []byte(yaml), app.ConfigOptions())
	require.NoError(t, err, "test config")

	s = &stack{t: t, model: model, client: serverClient, cfg: cfg,
		queue: fmt.Sprintf("test-%d-%d", time.Now().UnixNano(), queueSeq.Add(1))}
	t.Cleanup(s.terminateStarted)
	return s, yaml
}

// startModel starts the scripted model (the test double) on loopback,
// serving scripts (fallback: the script of a model no script names, or
// ""), its log the test's; it stops when the test ends.
func startModel(t *testing.T, scripts map[string]scriptedmodel.Script, fallback string, opts ...scriptedmodel.Option) *scriptedmodel.Server {
	t.Helper()
	model, err := scriptedmodel.Start("127.0.0.1:0", scripts, fallback, append([]scriptedmodel.Option{scriptedmodel.WithLogf(t.Logf)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = model.Close() })
	return model
}

// terminateStarted ends the runs the test started that are still open
// (one waiting for a person, say), so no test meets another's leftovers
// in visibility: the console's inbox, the handoff registry's counts.
func (s *stack) terminateStarted() {
	s.mu.Lock()
	ids := s.started
	s.mu.Unlock()
	for _, id := range ids {
		_ = s.client.TerminateWorkflow(context.Background(), id, "", "the test is over")
	}
}

// start starts AgentWorkflow on the stack's task queue.
func (s *stack) start(in workflows.AgentInput) client.WorkflowRun {
	s.t.Helper()
	return s.startAny(s.t, in)
}

// startAny starts AgentWorkflow with any input, as a hostile starter may.
func (s *stack) startAny(t *testing.T, in any) client.WorkflowRun {
	t.Helper()
	run, err := s.client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
		ID:                       fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano()),
		TaskQueue:                s.queue,
		WorkflowExecutionTimeout: 5 * time.Minute,
	}, workflows.WorkflowName, in)
	require.NoError(t, err)
	s.mu.Lock()
	s.started = append(s.started, run.GetID())
	s.mu.Unlock()
	return run
}

// result waits for a run's result (at most a minute).
func (s *stack) result(run client.WorkflowRun) (*workflows.AgentResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var res workflows.AgentResult
	if err := run.Get(ctx, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (s *stack) trace(run client.WorkflowRun) signals.Trace {
	s.t.Helper()
	var tr signals.Trace
	s.query(run, signals.QueryTrace, &tr)
	// A long trace comes in pages: read them all.
	for next := tr.Next; next != ""; {
		var page signals.Trace
		s.query(run, signals.QueryTrace, &page, signals.TracePage{Since: next})
		tr.Nodes = append(tr.Nodes, page.Nodes...)
		next = page.Next
	}
	tr.Next = ""
	return tr
}

func (s *stack) status(run client.WorkflowRun) signals.Status {
	s.t.Helper()
	var st signals.Status
	s.query(run, signals.QueryStatus, &st)
	return st
}

// update sends an update to a run and waits for its outcome: the
// validator's rejection, the handler's error, or nil.
func (s *stack) update(run client.WorkflowRun, name string, arg any) error {
	return s.updateInto(run, name, arg, nil)
}

// updateInto is update with the update's result read into into, unless
// it is nil.
func (s *stack) updateInto(run client.WorkflowRun, name string, arg, into any) error {
	ctx := context.Background()
	h, err := s.client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: run.GetID(), UpdateName: name, Args: []any{arg}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return err
	}
	return h.Get(ctx, into)
}

// updateStarted is update to a run that may be between generations, as
// one flooded with signals or just edited: the update is sent once, with
// no retry, as any client sends it (a generation that is starting takes it
// once it has started, docs/messages.md). The update's result goes into
// into, unless it is nil.
func (s *stack) updateStarted(run client.WorkflowRun, name string, arg, into any) error {
	return s.updateInto(run, name, arg, into)
}

// askAgainWhileStarting calls ask until the run it asks is past starting
// (at most 20 s): a query's signals.RunStarting.
func askAgainWhileStarting(ask func() error) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := ask()
		if err == nil || !strings.Contains(err.Error(), "the run is starting") || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pendingApproval waits until exactly one call of the run waits for
// approval, and answers it.
func (s *stack) pendingApproval(run client.WorkflowRun) signals.PendingApproval {
	s.t.Helper()
	var st signals.Status
	require.Eventually(s.t, func() bool {
		st = signals.Status{}
		v, err := s.client.QueryWorkflow(context.Background(), run.GetID(), run.GetRunID(), signals.QueryStatus)
		return err == nil && v.Get(&st) == nil && len(st.PendingApprovals) == 1
	}, 20*time.Second, 100*time.Millisecond)
	return st.PendingApprovals[0]
}

// phase reads a run's phase without failing the test, for polling: a run
// answers queries only once it has started.
func (s *stack) phase(run client.WorkflowRun) (signals.Phase, int) {
	v, err := s.client.QueryWorkflow(context.Background(), run.GetID(), run.GetRunID(), signals.QueryStatus)
	if err != nil {
		return "", 0
	}
	var st signals.Status
	if v.Get(&st) != nil {
		return "", 0
	}
	return st.Phase, st.Step
}

// awaitPhase waits (at most 30 s) until the run is in phase.
func (s *stack) awaitPhase(run client.WorkflowRun, phase signals.Phase) {
	s.t.Helper()
	require.Eventually(s.t, func() bool { p, _ := s.phase(run); return p == phase }, 30*time.Second, 50*time.Millisecond, "phase %s", phase)
}

// query reads a run's query; a run between generations is asked again.
func (s *stack) query(run client.WorkflowRun, name string, into any, args ...any) {
	s.t.Helper()
	require.NoError(s.t, askAgainWhileStarting(func() error {
		v, err := s.client.QueryWorkflow(context.Background(), run.GetID(), run.GetRunID(), name, args...)
		if err != nil {
			return err
		}
		return v.Get(into)
	}))
}

// nodesOf picks the trace nodes of one kind.
func nodesOf(tr signals.Trace, kind signals.NodeKind) []signals.Node {
	var out []signals.Node
	for _, n := range tr.Nodes {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds bin/unstuck-worker, bin/unstuck and the MCP server test
// double once, into a temp dir, so process-level tests use exactly this
// tree's code.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "unstuck-bin-")
		if buildErr != nil {
			return
		}
		for name, pkg := range map[string]string{"unstuck-worker": "./worker", "unstuck": "./starter",
			"unstuck-mcp-double": "./internal/testdouble/mcpserver/cmd/unstuck-mcp-double"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, name), pkg)
			cmd.Dir = repoRoot
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	require.NoError(t, buildErr)
	return binDir
}

// stoppedReport checks that a run stopped itself (AgentStopped) and
// answers its report.
func stoppedReport(t *testing.T, err error) workflows.AgentResult {
	t.Helper()
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "want AgentStopped, got %v", err)
	require.Equal(t, signals.StoppedErrorType, app.Type())
	var rep workflows.AgentResult
	require.NoError(t, app.Details(&rep))
	return rep
}
