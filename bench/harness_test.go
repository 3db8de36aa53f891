package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/proto"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/workflows"
)

const taskQueue = "bench"

var (
	devClient client.Client
	// devAddress is the dev server's frontend, for worker processes.
	devAddress string
	model      *scriptedmodel.Server
	cfg        *config.File
	benchSpec  *config.Resolved
)

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	flag.Parse()
	if flag.Lookup("test.bench").Value.String() == "" {
		// No benchmark chosen (go test ./..., make check): the package is
		// only compiled, and nothing needs the dev server.
		return m.Run()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := testutil.StartDevServer(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer func() { _ = srv.Stop() }()
	devClient = srv.Client()
	devAddress = srv.FrontendHostPort()
	if err := app.EnsureSearchAttributes(ctx, devClient, "default"); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	model, err = scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{
		"bench": benchScript, handoffSourceModel: handoffSource, handoffTargetModel: handoffTarget,
		streamModel: streamScript, mcpModel: mcpScript,
	}, "", scriptedmodel.WithLogf(func(string, ...any) {}))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer model.Close()
	tools = startToolServer()
	defer tools.Close()
	binDir, err := os.MkdirTemp("", "unstuck-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(binDir) }()
	if err := startMCPDoubles(binDir); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer mcpBench.web.Close()
	cfg, err = config.Parse("bench.yaml", []byte(fmt.Sprintf(`
model: { base_url: %q, name: bench }
%s
tools:
  - { name: noop, builtin: noop, parameters: { type: object } }
  - { name: sleep, builtin: sleep, parameters: { type: object, properties: { ms: { type: integer } } } }
%s%s%s%s
agents:
  - { name: bench, instructions: Benchmark., tools: [noop, sleep], policies: { max_steps: 2000 } }
%s
%s
%s
%s
%s
`, model.URL(), mcpServersYAML(), editTools(tools.URL), handoffTools(tools.URL), streamTools(tools.URL), mcpTools(tools.URL),
		editAgent, handoffAgents, streamAgents, mcpAgents, chatAgent)), app.ConfigOptions())
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	if benchSpec, err = cfg.Resolve("bench", nil); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	w := worker.New(devClient, taskQueue, worker.Options{})
	app.RegisterWorkflow(w)
	w.RegisterWorkflowWithOptions(BareWorkflow, workflow.RegisterOptions{Name: "BareWorkflow"})
	w.RegisterWorkflowWithOptions(FloorWorkflow, workflow.RegisterOptions{Name: "FloorWorkflow"})
	w.RegisterActivity(EmptyActivity)
	w.RegisterActivity(activities.New(cfg, devClient))
	if err := w.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer w.Stop()
	return m.Run()
}

// benchScript is the scripted model (a test double) of the benchmarks.
// The task says what to do: "steps=N" calls noop N times, then
// final_output; "parallel=K" asks for K sleeps of 200 ms in one reply;
// repeatedRequest answers each turn of a chat with the same noop call;
// the edit benchmarks' tasks are editScript's.
func benchScript(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	task := scriptedmodel.Task(req)
	turn := scriptedmodel.AssistantTurns(req)
	if t, ok := editScript(task, turn); ok {
		return t
	}
	if task == repeatedRequest {
		return repeatedRequestTurn(req)
	}
	if k, ok := strings.CutPrefix(task, "reply="); ok { // one reply of K calls
		if turn > 0 {
			return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
		}
		n, _ := strconv.Atoi(k)
		calls := make([]scriptedmodel.Call, n)
		for i := range calls {
			calls[i] = scriptedmodel.NewCall("noop", map[string]any{"i": i})
		}
		return scriptedmodel.CallsTurn(calls...)
	}
	if k, ok := strings.CutPrefix(task, "args="); ok { // one call with K KiB of arguments
		if turn > 0 {
			return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
		}
		n, _ := strconv.Atoi(k)
		return scriptedmodel.CallTurn("noop", map[string]any{"blob": strings.Repeat("a", n<<10)})
	}
	if k, ok := strings.CutPrefix(task, "parallel="); ok {
		if turn > 0 {
			return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
		}
		n, _ := strconv.Atoi(k)
		calls := make([]scriptedmodel.Call, n)
		for i := range calls {
			calls[i] = scriptedmodel.NewCall("sleep", map[string]any{"ms": 200})
		}
		return scriptedmodel.CallsTurn(calls...)
	}
	if k, ok := strings.CutPrefix(task, "work="); ok { // K calls of the write tool work, one a step
		n, _ := strconv.Atoi(k)
		if turn < n {
			return scriptedmodel.CallTurn("work", map[string]any{"step": turn + 1})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"steps": turn})
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(task, "steps="))
	if turn < n {
		return scriptedmodel.CallTurn("noop", map[string]any{"i": turn})
	}
	return scriptedmodel.CallTurn("final_output", map[string]any{"steps": turn})
}

var runSeq int

// outcome is how a run ended, read from its whole history (every
// generation of a continue-as-new chain).
type outcome struct {
	err         error
	failedTasks int // workflow tasks that failed: what the guards prevent
	generations int
	calls       int // tool activities scheduled
}

// executeChain runs a workflow and reads its history, generation by
// generation, without failing the benchmark when the run stops.
func executeChain(b *testing.B, in workflows.AgentInput) outcome {
	b.Helper()
	runSeq++
	id := fmt.Sprintf("bench-limits-%d-%d", time.Now().UnixNano(), runSeq)
	run, err := devClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}, workflows.WorkflowName, in)
	if err != nil {
		b.Fatal(err)
	}
	first := run.GetRunID() // Get follows the chain: read the first id before
	var o outcome
	o.err = run.Get(context.Background(), nil)
	for runID := first; runID != ""; {
		o.generations++
		next := ""
		eachEvent(b, id, runID, func(ev *historypb.HistoryEvent) {
			switch ev.GetEventType() {
			case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
				o.failedTasks++
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
				if ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == "RunTool" {
					o.calls++
				}
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
				next = ev.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
			}
		})
		runID = next
	}
	return o
}

// execute runs a workflow to its end and answers its wall time and the
// bytes of its event history.
func execute(b *testing.B, workflowType string, in workflows.AgentInput) (time.Duration, int) {
	b.Helper()
	elapsed, id := executeRun(b, workflowType, in)
	size := 0
	eachEvent(b, id, "", func(ev *historypb.HistoryEvent) { size += proto.Size(ev) })
	return elapsed, size
}

// executeRun runs a workflow to its end and answers its wall time and
// workflow id.
func executeRun(b *testing.B, workflowType string, arg any) (time.Duration, string) {
	b.Helper()
	runSeq++
	id := fmt.Sprintf("bench-%s-%d-%d", workflowType, time.Now().UnixNano(), runSeq)
	start := time.Now()
	run, err := devClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}, workflowType, arg)
	if err != nil {
		b.Fatal(err)
	}
	if err := run.Get(context.Background(), nil); err != nil {
		b.Fatalf("%s %s: %v", workflowType, id, err)
	}
	return time.Since(start), id
}

// eachEvent calls f with every event of a run's history ("" the latest run).
func eachEvent(b *testing.B, workflowID, runID string, f func(*historypb.HistoryEvent)) {
	b.Helper()
	iter := devClient.GetWorkflowHistory(context.Background(), workflowID, runID, false, 0)
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			b.Fatal(err)
		}
		f(ev)
	}
}

// eachGeneration calls f with every event of each run of a chain, from
// its first run, following continue-as-new; gen counts the runs from 0.
func eachGeneration(b *testing.B, workflowID, firstRunID string, f func(gen int, ev *historypb.HistoryEvent)) {
	b.Helper()
	for gen, runID := 0, firstRunID; runID != ""; gen++ {
		next := ""
		eachEvent(b, workflowID, runID, func(ev *historypb.HistoryEvent) {
			if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
				next = a.GetNewExecutionRunId()
			}
			f(gen, ev)
		})
		runID = next
	}
}

// medianBy is the median of field over xs (the mean of the middle two for
// an even count).
func medianBy[T any](xs []T, field func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = field(x)
	}
	slices.Sort(v)
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// median64 is the median of xs.
func median64(xs []float64) float64 { return medianBy(xs, func(x float64) float64 { return x }) }
