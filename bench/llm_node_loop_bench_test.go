package bench

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// BenchmarkLLMNodeLoop: a graph whose llm node L goes back to itself
// until state.done, which never comes, at max_steps 40. The stuck model
// (a scripted test double) asks for the same lookup at every visit, with
// a new call id from the provider and a new sent_at (volatile for the
// tool): the loop must be seen at the `repeats`-th visit, for repeats 2,
// 3 and 5 (before stable signatures it was never seen: 40 visits, no
// escalation). The searching model asks for a new query at every visit:
// no loop, it runs to max_steps (no false positive).
func BenchmarkLLMNodeLoop(b *testing.B) {
	stuck := func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		n := scriptedmodel.AssistantTurns(req)
		return scriptedmodel.CallTurn("noop", map[string]any{"q": "NYC", "sent_at": fmt.Sprintf("10:00:%02d", n)})
	}
	searching := func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		return scriptedmodel.CallTurn("noop", map[string]any{"q": fmt.Sprintf("city %d", scriptedmodel.AssistantTurns(req))})
	}
	m, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{"stuck": stuck, "searching": searching},
		"", scriptedmodel.WithLogf(func(string, ...any) {}))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	agent := func(name string, repeats int) string {
		return fmt.Sprintf(`
  - name: %s-%d
    model: { name: %s }
    instructions: Look it up.
    tools: [noop]
    graph:
      start: L
      nodes: { L: { llm: true }, E: { end: true } }
      edges: [ { from: L, to: E, when: "state.done == true" }, { from: L, to: L } ]
    policies: { max_steps: 40, loop: { window: 64, repeats: %d }, escalation: [stop] }`, name, repeats, name, repeats)
	}
	yaml := fmt.Sprintf("model: { base_url: %q, name: stuck }\ntools:\n  - { name: noop, builtin: noop, parameters: { type: object }, volatile: [sent_at] }\nagents:", m.URL())
	for _, r := range []int{2, 3, 5} {
		yaml += agent("stuck", r)
	}
	yaml += agent("searching", 3) + "\n"
	loopCfg, err := config.Parse("llm-loop.yaml", []byte(yaml), app.ConfigOptions())
	if err != nil {
		b.Fatal(err)
	}
	queue := fmt.Sprintf("llm-loop-%d", time.Now().UnixNano())
	w := worker.New(devClient, queue, worker.Options{})
	app.RegisterWorkflow(w)
	w.RegisterActivity(activities.New(loopCfg, devClient))
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()

	// visits runs the agent and answers its llm node's visits (its model
	// requests) and whether a loop stopped it.
	visits := func(agent string) (int, bool) {
		ctx := context.Background()
		run, err := devClient.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID: fmt.Sprintf("%s-%s-%d", queue, agent, time.Now().UnixNano()), TaskQueue: queue, WorkflowExecutionTimeout: 5 * time.Minute,
		}, workflows.WorkflowName, workflows.AgentInput{Agent: agent, Task: "find NYC"})
		if err != nil {
			b.Fatal(err)
		}
		var app *temporal.ApplicationError
		if err := run.Get(ctx, nil); !errors.As(err, &app) || app.Type() != signals.StoppedErrorType {
			b.Fatalf("%s: want AgentStopped, got %v", agent, err)
		}
		var rep workflows.AgentResult
		_ = app.Details(&rep)
		return rep.Steps, len(rep.Escalations) > 0
	}
	got := map[string]int{}
	for i := 0; i < b.N; i++ {
		for _, r := range []int{2, 3, 5} {
			n, looped := visits(fmt.Sprintf("stuck-%d", r))
			if !looped || n != r {
				b.Errorf("repeats %d: stopped after %d visits (loop: %v), want a loop at visit %d", r, n, looped, r)
			}
			got[fmt.Sprintf("visits-at-repeats-%d", r)] = n
		}
		n, looped := visits("searching-3")
		if looped {
			b.Errorf("the searching model was taken for a loop after %d visits", n)
		}
		got["searching-visits"] = n
	}
	for name, v := range got {
		b.ReportMetric(float64(v), name)
	}
}
