package load

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report for a person: one figure a line, each named.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "load report: agent %q on task queue %q, %d runs at concurrency %d\n", r.Agent, r.TaskQueue, r.Runs, r.Concurrency)
	if r.Setup != "" {
		fmt.Fprintf(&b, "  setup          %s\n", r.Setup)
	}
	fmt.Fprintf(&b, "  runs           %d completed, %d failed, %d started", r.Completed, r.Failed, r.Started)
	if r.Abandoned > 0 {
		fmt.Fprintf(&b, ", %d abandoned (interrupted while running)", r.Abandoned)
	}
	b.WriteString("\n")
	if r.StoppedEarly != "" {
		fmt.Fprintf(&b, "  stopped early  %s\n", r.StoppedEarly)
	}
	fmt.Fprintf(&b, "  wall time      %.2fs\n", r.WallSeconds)
	fmt.Fprintf(&b, "  throughput     %.1f runs/s, %.1f steps/s (%d steps)\n", r.RunsPerSecond, r.StepsPerSecond, r.Steps)
	fmt.Fprintf(&b, "  step latency   %s (steps of %d histories)\n", r.StepLatency, r.Server.HistoriesRead)
	fmt.Fprintf(&b, "  run latency    %s (completed runs)\n", r.RunLatency)
	if len(r.Failures) == 0 {
		b.WriteString("  failures       none\n")
	}
	for i, f := range r.Failures {
		label := "               "
		if i == 0 {
			label = "  failures     "
		}
		fmt.Fprintf(&b, "%s %d %s (first: %s: %s)\n", label, f.Count, f.Kind, f.WorkflowID, oneLine(f.Error, 200))
	}
	s := r.Server
	fmt.Fprintf(&b, "  task queue     %d workflow and %d activity pollers; backlog at the end %d workflow, %d activity tasks (peak %d, %d)\n",
		s.WorkflowPollers, s.ActivityPollers, s.WorkflowBacklog, s.ActivityBacklog, s.PeakWorkflowBacklog, s.PeakActivityBacklog)
	fmt.Fprintf(&b, "  histories      %d read: %d workflow task failures (in %d runs), %d activity retries\n",
		s.HistoriesRead, s.WorkflowTaskFailures, s.RunsWithTaskFailures, s.ActivityRetries)
	if k := r.ToolCalls; k != nil {
		fmt.Fprintf(&b, "  tool calls     %d calls, %d distinct Idempotency-Keys, %d without a key, %d with several, %d repeating a key (retries)\n",
			k.Calls, k.Keys, k.WithoutKey, k.WithSeveralKeys, k.Repeated)
	}
	if sp := r.Spend; sp != nil {
		fmt.Fprintf(&b, "  spend per run  %.1f model requests, %.0f input and %.0f output tokens, %.1f tool calls", sp.ModelRequests, sp.InputTokens, sp.OutputTokens, sp.ToolCalls)
		if sp.Currency != "" {
			fmt.Fprintf(&b, ", %.4f %s (at most %.4f)", sp.Cost, sp.Currency, sp.CostMax)
		}
		fmt.Fprintf(&b, " (%d runs", sp.Runs)
		if sp.Estimated > 0 {
			fmt.Fprintf(&b, "; %d requests counted by the worker", sp.Estimated)
		}
		b.WriteString(")\n")
	}
	for _, u := range s.Unavailable {
		fmt.Fprintf(&b, "  unavailable    %s\n", oneLine(u, 200))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String is the percentiles on one line.
func (l Latency) String() string {
	if l.Count == 0 {
		return "no samples"
	}
	return fmt.Sprintf("p50 %s  p95 %s  p99 %s  max %s  over %d", msText(l.P50), msText(l.P95), msText(l.P99), msText(l.Max), l.Count)
}

// msText is milliseconds as a person reads them: 850ms, 1.25s.
func msText(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.2fs", ms/1000)
	}
	return fmt.Sprintf("%.0fms", ms)
}

// oneLine keeps an error message on one line, cut at n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
