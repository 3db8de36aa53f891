package bench

import (
	"fmt"
	"testing"
)

// BenchmarkLimits: the largest reply, arguments and run the engine handles
// without a failed workflow task (the guards of policies.limits and the
// payload limits fail the smallest thing instead). Reported per size: the
// tool calls that ran, whether the run completed, and failed workflow tasks
// (goal: 0 everywhere).
func BenchmarkLimits(b *testing.B) {
	for i := 0; i < b.N; i++ {
		failed := 0
		for _, n := range []int{64, 1000, 3000, 10000} {
			o := executeChain(b, agentInput(fmt.Sprintf("reply=%d", n)))
			b.ReportMetric(float64(o.calls), fmt.Sprintf("reply%d-calls-ran", n))
			b.ReportMetric(completed(o), fmt.Sprintf("reply%d-completed", n))
			failed += o.failedTasks
		}
		for _, kib := range []int{512, 1024, 1500, 1600, 1900} {
			o := executeChain(b, agentInput(fmt.Sprintf("args=%d", kib)))
			b.ReportMetric(float64(o.calls), fmt.Sprintf("args%dKiB-calls-ran", kib))
			b.ReportMetric(completed(o), fmt.Sprintf("args%dKiB-completed", kib))
			failed += o.failedTasks
		}
		o := executeChain(b, agentInput("steps=1000"))
		b.ReportMetric(float64(o.calls), "run-steps")
		b.ReportMetric(float64(o.generations), "run-generations")
		b.ReportMetric(completed(o), "run-completed")
		failed += o.failedTasks
		b.ReportMetric(float64(failed), "failed-workflow-tasks")
	}
}

func completed(o outcome) float64 {
	if o.err == nil {
		return 1
	}
	return 0
}
