package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/unstuck-dev/unstuck/workflows"
)

const rounds = 3 // interleaved runs of each variant, per benchmark iteration

func agentInput(task string) workflows.AgentInput {
	return workflows.AgentInput{Agent: "bench", Task: task}
}

// BenchmarkEngineOverhead: an N-step run of AgentWorkflow (scripted model,
// no-op built-in tool) against BareWorkflow executing the same activities.
// Goal: at most 1.3x.
func BenchmarkEngineOverhead(b *testing.B) {
	const steps = 20
	var agent, bare time.Duration
	for i := 0; i < b.N; i++ {
		for r := 0; r < rounds; r++ {
			d, _ := execute(b, workflows.WorkflowName, agentInput(fmt.Sprintf("steps=%d", steps)))
			agent += d
			d, _ = execute(b, "BareWorkflow", agentInput(fmt.Sprintf("steps=%d", steps)))
			bare += d
		}
	}
	n := float64(b.N * rounds)
	b.ReportMetric(agent.Seconds()*1000/n/steps, "unstuck-ms/step")
	b.ReportMetric(bare.Seconds()*1000/n/steps, "bare-ms/step")
	b.ReportMetric(agent.Seconds()/bare.Seconds(), "x-overhead")
}

// BenchmarkHistoryGrowth: event-history bytes per step at 10 and at 200
// steps. Goal for unstuck: ratio at most 1.2; BareWorkflow resends the
// conversation with every request and grows quadratically.
func BenchmarkHistoryGrowth(b *testing.B) {
	perStep := func(workflowType string, steps int) float64 {
		_, size := execute(b, workflowType, agentInput(fmt.Sprintf("steps=%d", steps)))
		return float64(size) / float64(steps)
	}
	for i := 0; i < b.N; i++ {
		a10, a200 := perStep(workflows.WorkflowName, 10), perStep(workflows.WorkflowName, 200)
		b10, b200 := perStep("BareWorkflow", 10), perStep("BareWorkflow", 200)
		b.ReportMetric(a10, "unstuck-B/step@10")
		b.ReportMetric(a200, "unstuck-B/step@200")
		b.ReportMetric(a200/a10, "unstuck-x-growth")
		b.ReportMetric(b10, "bare-B/step@10")
		b.ReportMetric(b200, "bare-B/step@200")
		b.ReportMetric(b200/b10, "bare-x-growth")
	}
}

// BenchmarkParallelCalls: one step of 8 independent calls of a 200 ms tool
// against one such call. Goal: at most 1.3x.
func BenchmarkParallelCalls(b *testing.B) {
	var eight, one time.Duration
	for i := 0; i < b.N; i++ {
		for r := 0; r < rounds; r++ {
			d, _ := execute(b, workflows.WorkflowName, agentInput("parallel=8"))
			eight += d
			d, _ = execute(b, workflows.WorkflowName, agentInput("parallel=1"))
			one += d
		}
	}
	n := float64(b.N * rounds)
	b.ReportMetric(eight.Seconds()*1000/n, "8-calls-ms")
	b.ReportMetric(one.Seconds()*1000/n, "1-call-ms")
	b.ReportMetric(eight.Seconds()/one.Seconds(), "x-parallel")
}
