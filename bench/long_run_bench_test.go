package bench

import (
	"context"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// longRunBefore is the commit before a long run's trace was archived
// (issue 32, item 2): its worker is the "before" side.
const longRunBefore = "ce7e50a"

// BenchmarkLongRun (issue 32): one run of 10,000 steps, each a call whose
// result is 1 KiB of text that compresses as JSON of real data does
// (hex), on a worker process of this tree and of longRunBefore, one after
// the other, with default policies and the dev server's default
// continue-as-new hint. Reported: whether it completed (within 90
// minutes, or until it waits for a person), its generations, the largest carried input, the longest
// workflow task and the longest one that continued as new, failed
// workflow tasks, and the largest generation's history.
func BenchmarkLongRun(b *testing.B) {
	now := buildWorker(b)
	before := buildWorkerAt(b, longRunBefore)
	for range b.N {
		for _, side := range []struct{ name, bin string }{{"before (" + longRunBefore + ")", before}, {"now", now}} {
			f := longRun(b, side.bin, longRunSteps)
			b.Logf("%d steps of 1 KiB results, %s: completed %v in %.0f s, %d generations, largest carried input %d KiB, longest workflow task %d ms, longest continue-as-new task %d ms, %d failed workflow tasks, largest generation history %d KiB",
				longRunSteps, side.name, f.completed, f.took.Seconds(), f.generations, f.maxInput>>10, f.maxTask.Milliseconds(), f.maxCANTask.Milliseconds(), f.failedTasks, f.maxHistory>>10)
		}
	}
}

const longRunSteps = 10_000

// longRunScript (a test double) calls echo with 1 KiB of data until the
// step count, then gives the output. It counts from its last result: a
// long run's conversation no longer holds every step.
func longRunScript(steps int) scriptedmodel.Script {
	return func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		if i := scriptedmodel.NextStep(req); i < steps {
			return scriptedmodel.CallTurn("echo", map[string]any{"i": i, "data": kibOfHex(i)})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"steps": steps})
	}
}

// kibOfHex is 1 KiB of hex digits that differ from step to step.
func kibOfHex(i int) string {
	out := make([]byte, 0, 512)
	h := fnv.New64a()
	for len(out) < 512 {
		fmt.Fprintf(h, "%d/%d", i, len(out))
		out = h.Sum(out)
	}
	return hex.EncodeToString(out[:512])
}

func longRun(b *testing.B, bin string, steps int) chainFigures {
	b.Helper()
	s := startScripted(b, bin, "long-run", map[string]scriptedmodel.Script{"longrun": longRunScript(steps)}, func(modelURL string) string {
		return fmt.Sprintf(`
model: { base_url: %q, name: longrun }
tools:
  - { name: echo, builtin: echo, parameters: { type: object } }
agents:
  - { name: longrun, instructions: Count., tools: [echo], policies: { max_steps: %d } }
`, modelURL, steps+10)
	})
	defer s.close()
	queue, ctx, start := s.queue, context.Background(), time.Now()
	run := s.start(b, queue, workflows.AgentInput{Agent: "longrun", Task: "count"})
	firstRunID := run.GetRunID()
	err := awaitLongRun(b, run, queue, 90*time.Minute)
	f := chainFigures{completed: err == nil, took: time.Since(start)}
	if err != nil {
		b.Logf("%d steps: %v", steps, err)
	}
	generationFigures(b, queue, firstRunID, &f)
	if !f.completed {
		_ = devClient.TerminateWorkflow(ctx, queue, "", "the benchmark ends it: "+err.Error())
	}
	return f
}

// awaitLongRun waits for the run to end, at most within, and no longer
// once it waits for a person (a run that lost its way at the ladder's
// human rung would wait for its human_timeout).
func awaitLongRun(b *testing.B, run client.WorkflowRun, id string, within time.Duration) error {
	b.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		time.Sleep(10 * time.Second)
		desc, err := devClient.DescribeWorkflowExecution(ctx, id, "")
		if err != nil {
			continue
		}
		if desc.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return run.Get(ctx, nil) // follows the chain to the last run
		}
		var st signals.Status
		if query(id, signals.QueryStatus, &st) == nil && st.Phase != signals.PhaseRunning && st.Phase != "" {
			return fmt.Errorf("the run waits (%s) at step %d, generation %d: %s", st.Phase, st.Step, st.Generation, st.LastError)
		}
	}
	return fmt.Errorf("the run did not end within %s", within)
}
