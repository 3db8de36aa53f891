package load

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Report is what a load measured. Durations are in milliseconds (seconds
// for the wall time) so that the JSON reads without units to decode.
type Report struct {
	// Setup says what served the runs: a scripted model (a test double)
	// or a deployment's workers.
	Setup       string `json:"setup,omitempty"`
	Agent       string `json:"agent"`
	TaskQueue   string `json:"task_queue"`
	Runs        int    `json:"runs"` // asked for
	Concurrency int    `json:"concurrency"`
	Started     int    `json:"started"`
	Completed   int    `json:"completed"`
	Failed      int    `json:"failed"`
	// Abandoned runs were still in flight when the load was interrupted.
	Abandoned int `json:"abandoned"`
	// StoppedEarly says why not every run was started, when the first
	// run failed.
	StoppedEarly string `json:"stopped_early,omitempty"`

	WallSeconds float64 `json:"wall_seconds"`
	// RunsPerSecond is completed runs per second of wall time.
	RunsPerSecond float64 `json:"runs_per_second"`
	// Steps are the model steps of the completed runs (their results'
	// steps); StepsPerSecond is per second of wall time.
	Steps          int     `json:"steps"`
	StepsPerSecond float64 `json:"steps_per_second"`

	// StepLatency is from one model request's start to the next's (the
	// last step: to the run's end), read in the runs' histories.
	StepLatency Latency `json:"step_latency"`
	// RunLatency is from asking the server to start a completed run to
	// seeing its result, as the client saw it.
	RunLatency Latency `json:"run_latency"`

	// Failures are the failed runs by kind, most frequent first.
	Failures []Failure `json:"failures,omitempty"`

	Server ServerFigures `json:"server"`

	// ToolCalls is the self-contained load's tool server's record of the
	// Idempotency-Keys (set by the caller; absent in external mode).
	ToolCalls *KeyCounts `json:"tool_calls,omitempty"`

	// Spend is what the ended runs spent, per run (their results' and
	// stop reports' spend); absent when none said.
	Spend *SpendPerRun `json:"spend_per_run,omitempty"`
}

// SpendPerRun is the mean spend of the runs that reported one, and the
// most a run cost.
type SpendPerRun struct {
	Runs          int     `json:"runs"`
	ModelRequests float64 `json:"model_requests"`
	ToolCalls     float64 `json:"tool_calls"`
	InputTokens   float64 `json:"input_tokens"`
	OutputTokens  float64 `json:"output_tokens"`
	Cost          float64 `json:"cost,omitempty"`
	CostMax       float64 `json:"cost_max,omitempty"`
	Currency      string  `json:"currency,omitempty"`
	// Estimated: model requests whose tokens the worker counted (the
	// provider reported none), in all.
	Estimated int64 `json:"estimated,omitempty"`
}

// spendPerRun sums the outcomes' spend into a per-run mean.
func spendPerRun(outcomes []outcome) *SpendPerRun {
	var s SpendPerRun
	for _, o := range outcomes {
		sp := o.spend
		if !o.done || sp == nil {
			continue
		}
		s.Runs++
		s.ModelRequests += float64(sp.ModelRequests)
		s.ToolCalls += float64(sp.ToolCalls)
		s.InputTokens += float64(sp.InputTokens)
		s.OutputTokens += float64(sp.OutputTokens)
		s.Cost += sp.Cost
		s.CostMax = max(s.CostMax, sp.Cost)
		s.Estimated += sp.Estimated
		if sp.Currency != "" {
			s.Currency = sp.Currency
		}
	}
	if s.Runs == 0 {
		return nil
	}
	n := float64(s.Runs)
	s.ModelRequests, s.ToolCalls, s.InputTokens, s.OutputTokens, s.Cost = s.ModelRequests/n, s.ToolCalls/n, s.InputTokens/n, s.OutputTokens/n, s.Cost/n
	return &s
}

// Latency is a distribution's nearest-rank percentiles, in milliseconds,
// over Count samples (all zero when there are none).
type Latency struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// Failure is one kind of failure: how many runs failed so, and the first
// of them with its error, to start looking from.
type Failure struct {
	Kind       string `json:"kind"`
	Count      int    `json:"count"`
	WorkflowID string `json:"workflow_id"`
	Error      string `json:"error"`
}

// ServerFigures are the Temporal server's own figures: the task queue as
// it describes it, and what the histories of the runs record.
type ServerFigures struct {
	// Pollers and backlog of the task queue as the load ended.
	WorkflowPollers int   `json:"workflow_pollers"`
	ActivityPollers int   `json:"activity_pollers"`
	WorkflowBacklog int64 `json:"workflow_backlog"`
	ActivityBacklog int64 `json:"activity_backlog"`
	// The largest backlogs seen in the once-a-second samples.
	PeakWorkflowBacklog int64 `json:"peak_workflow_backlog"`
	PeakActivityBacklog int64 `json:"peak_activity_backlog"`
	// HistoriesRead is how many runs' histories the figures below (and
	// StepLatency) come from.
	HistoriesRead int `json:"histories_read"`
	// WorkflowTaskFailures are WorkflowTaskFailed events in those
	// histories (a worker that could not complete a workflow task: a
	// panic, a non-determinism error...), in RunsWithTaskFailures runs.
	WorkflowTaskFailures int `json:"workflow_task_failures"`
	RunsWithTaskFailures int `json:"runs_with_task_failures"`
	// ActivityRetries are activity attempts after the first, from the
	// attempt of each ActivityTaskStarted event.
	ActivityRetries int `json:"activity_retries"`
	// Unavailable lists the figures the server would not give, and why.
	Unavailable []string `json:"unavailable,omitempty"`
}

// report sums the outcomes up; the history and server figures are added
// after.
func (l *loader) report(wall time.Duration) *Report {
	r := &Report{
		Setup: l.o.Setup, Agent: l.o.Agent, TaskQueue: l.o.TaskQueue, Runs: l.o.Runs, Concurrency: l.o.Concurrency,
		Started: int(l.started.Load()), Completed: int(l.completed.Load()),
		Failed: int(l.failed.Load()), Abandoned: int(l.abandoned.Load()),
		WallSeconds: wall.Seconds(),
	}
	var runs []time.Duration
	byKind := map[string]*Failure{}
	for _, o := range l.outcomes {
		switch {
		case o.failed():
			f := byKind[o.kind]
			if f == nil {
				f = &Failure{Kind: o.kind, WorkflowID: o.id, Error: o.err.Error()}
				byKind[o.kind] = f
			}
			f.Count++
		case o.done:
			runs = append(runs, o.latency)
			r.Steps += o.steps
		}
	}
	for _, f := range byKind {
		r.Failures = append(r.Failures, *f)
	}
	slices.SortFunc(r.Failures, func(a, b Failure) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Kind, b.Kind))
	})
	r.RunLatency = latencyOf(runs)
	r.Spend = spendPerRun(l.outcomes)
	if wall > 0 {
		r.RunsPerSecond = float64(r.Completed) / wall.Seconds()
		r.StepsPerSecond = float64(r.Steps) / wall.Seconds()
	}
	return r
}

// latencyOf is the nearest-rank percentiles of samples (sorted in place).
func latencyOf(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	slices.Sort(samples)
	return Latency{
		Count: len(samples),
		P50:   ms(percentile(samples, 0.50)),
		P95:   ms(percentile(samples, 0.95)),
		P99:   ms(percentile(samples, 0.99)),
		Max:   ms(samples[len(samples)-1]),
	}
}

// percentile is the nearest-rank percentile q of sorted samples: the
// smallest sample with at least q of all samples at or below it, so it is
// always a value that was measured.
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
