package load

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Options say what load to drive.
type Options struct {
	// Agent is the agent every run is started for.
	Agent string
	// Task is every run's task.
	Task string
	// Runs is how many runs to start in all.
	Runs int
	// Concurrency is how many runs are in flight at once; above Runs it
	// is clamped to Runs.
	Concurrency int
	// TaskQueue is where the runs are started; a worker must poll it.
	TaskQueue string
	// Namespace is the client's namespace, for the calls that name it
	// (DescribeTaskQueue). Empty: "default".
	Namespace string
	// RunTimeout bounds each run (its workflow execution timeout), so a
	// run that never ends is counted as a timeout instead of holding the
	// load forever. 0: DefaultRunTimeout.
	RunTimeout time.Duration
	// HistorySample is how many finished runs' histories are read after
	// the load for the step latencies and the workflow task failures.
	// 0: every run's.
	HistorySample int
	// PollerWait is how long Run waits for a worker to poll TaskQueue
	// before giving up. 0: DefaultPollerWait.
	PollerWait time.Duration
	// Progress, when set, gets a progress line about every second.
	Progress io.Writer
	// Setup says what serves the runs, copied into the report (LocalSetup,
	// ExternalSetup or the caller's words).
	Setup string
	// IDPrefix starts every workflow id. Empty: "load-<agent>-<time>".
	IDPrefix string
}

// Defaults of Options.
const (
	DefaultRunTimeout = 10 * time.Minute
	DefaultPollerWait = 10 * time.Second
)

// check refuses options that cannot drive a load and fills the defaults.
// The CLI checks its flags first, with the flags' names; this guards the
// benchmarks and any other caller.
func (o *Options) check() error {
	switch {
	case strings.TrimSpace(o.Agent) == "":
		return fmt.Errorf("load: no agent")
	case o.Task == "":
		return fmt.Errorf("load: no task")
	case o.TaskQueue == "":
		return fmt.Errorf("load: no task queue")
	case o.Runs <= 0:
		return fmt.Errorf("load: runs must be positive, not %d", o.Runs)
	case o.Concurrency <= 0:
		return fmt.Errorf("load: concurrency must be positive, not %d", o.Concurrency)
	}
	o.Concurrency = min(o.Concurrency, o.Runs)
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.RunTimeout <= 0 {
		o.RunTimeout = DefaultRunTimeout
	}
	if o.PollerWait <= 0 {
		o.PollerWait = DefaultPollerWait
	}
	if o.IDPrefix == "" {
		o.IDPrefix = fmt.Sprintf("load-%s-%s", o.Agent, time.Now().UTC().Format("20060102-150405.000"))
	}
	return nil
}
