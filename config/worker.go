package config

import "strings"

// WorkerTuning is the worker block: how much one worker process takes on.
// A field left out (0) keeps the Temporal SDK's default, so a file
// without the block runs as before; an explicit 0 or less is refused.
type WorkerTuning struct {
	MaxConcurrentWorkflowTasks int `yaml:"max_concurrent_workflow_tasks" json:"max_concurrent_workflow_tasks,omitempty"`
	MaxConcurrentActivities    int `yaml:"max_concurrent_activities" json:"max_concurrent_activities,omitempty"`
	WorkflowPollers            int `yaml:"workflow_pollers" json:"workflow_pollers,omitempty"`
	ActivityPollers            int `yaml:"activity_pollers" json:"activity_pollers,omitempty"`
	StickyCacheSize            int `yaml:"sticky_cache_size" json:"sticky_cache_size,omitempty"`
}

// The Temporal SDK's defaults (v1.50, internal/internal_worker.go and
// internal_task_handlers.go), printed at start and in --help.
const (
	DefaultMaxConcurrentWorkflowTasks = 1000
	DefaultMaxConcurrentActivities    = 1000
	DefaultPollers                    = 2
	DefaultStickyCacheSize            = 10000
)

// TuningField is one setting of the worker block, listed once for the
// checks, the worker's flags and its startup line.
type TuningField struct {
	Key     string // the key under worker:
	Default int    // the SDK's, when Value is 0
	Value   *int   // 0: not set
	Usage   string
}

// Flag is the field's unstuck-worker flag name (without the dashes).
func (f TuningField) Flag() string { return strings.ReplaceAll(f.Key, "_", "-") }

// Effective is the value the worker runs with.
func (f TuningField) Effective() int {
	if *f.Value > 0 {
		return *f.Value
	}
	return f.Default
}

// Fields lists the settings, pointing into w.
func (w *WorkerTuning) Fields() []TuningField {
	return []TuningField{
		{"max_concurrent_workflow_tasks", DefaultMaxConcurrentWorkflowTasks, &w.MaxConcurrentWorkflowTasks,
			"workflow tasks run at once by this worker"},
		{"max_concurrent_activities", DefaultMaxConcurrentActivities, &w.MaxConcurrentActivities,
			"activities (model requests, tool calls) run at once by this worker"},
		{"workflow_pollers", DefaultPollers, &w.WorkflowPollers,
			"goroutines polling the task queue for workflow tasks"},
		{"activity_pollers", DefaultPollers, &w.ActivityPollers,
			"goroutines polling the task queue for activity tasks"},
		{"sticky_cache_size", DefaultStickyCacheSize, &w.StickyCacheSize,
			"runs whose state this worker process keeps in memory between tasks"},
	}
}

// workerTuning refuses a setting of the worker block below 1.
func (c *checker) workerTuning(w *WorkerTuning) {
	for _, f := range w.Fields() {
		p := path{"worker", f.Key}
		if *f.Value < 0 || (*f.Value == 0 && written(c.doc, p)) {
			c.add(p, "must be at least 1, got %d", *f.Value)
		}
	}
}
