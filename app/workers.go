package app

import (
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
)

// Workers are every worker one config runs for a task queue: the main
// one (AgentWorkflow and all activities) and one per tool with a limit
// (max_concurrent, rate), serving only the tool's own task queue. They
// share one set of activities, so the worker's breakers and MCP
// connections are the same whichever queue a call came from.
type Workers struct {
	// Queues are the task queues served, the run's first.
	Queues  []string
	workers []worker.Worker
	// fatal gets the first error that stopped a worker for good (the
	// namespace gone, say), so Run ends as worker.Run would.
	fatal chan error
}

// NewWorkers builds the workers of cfg for taskQueue. opts are the main
// worker's options, with cfg's worker block applied over them; a tool's
// worker takes them too, with its own slots (max_concurrent) and rate.
// The sticky cache size is process-wide (ApplyStickyCacheSize). acts
// configure the activities (a tool emulator, for unstuck eval run).
func NewWorkers(c client.Client, cfg *config.File, taskQueue string, opts worker.Options, acts ...activities.Option) (*Workers, error) {
	ws := &Workers{Queues: []string{taskQueue}, fatal: make(chan error, 1)}
	opts = tuned(opts, cfg.Worker)
	if opts.MaxHeartbeatThrottleInterval == 0 {
		// A streamed reply's text reaches followers in its heartbeats.
		opts.MaxHeartbeatThrottleInterval = activities.LiveTextEvery
	}
	onFatal := opts.OnFatalError
	opts.OnFatalError = func(err error) {
		if onFatal != nil {
			onFatal(err)
		}
		select {
		case ws.fatal <- err:
		default:
		}
	}
	set := activities.New(cfg, c, acts...)
	main := worker.New(c, taskQueue, opts)
	RegisterWorkflow(main)
	main.RegisterActivity(set)
	ws.workers = []worker.Worker{main}
	for _, t := range cfg.Tools {
		if !t.Limited() {
			continue
		}
		topts := opts
		topts.DisableWorkflowWorker = true
		if t.MaxConcurrent > 0 {
			topts.MaxConcurrentActivityExecutionSize = t.MaxConcurrent
		}
		if t.Rate != "" {
			perSecond, err := config.ParseRate(t.Rate)
			if err != nil {
				return nil, fmt.Errorf("tool %s: %w", t.Name, err)
			}
			// Enforced by the server for the whole queue, so every
			// worker of it together stays under the rate.
			topts.TaskQueueActivitiesPerSecond = perSecond
		}
		q := config.ToolTaskQueue(taskQueue, t.Name)
		w := worker.New(c, q, topts)
		w.RegisterActivity(set)
		ws.Queues = append(ws.Queues, q)
		ws.workers = append(ws.workers, w)
	}
	return ws, nil
}

// tuned applies the settings of the worker block that are set; the rest
// keep what opts say (the SDK's defaults when unset).
func tuned(opts worker.Options, t config.WorkerTuning) worker.Options {
	if t.MaxConcurrentWorkflowTasks > 0 {
		opts.MaxConcurrentWorkflowTaskExecutionSize = t.MaxConcurrentWorkflowTasks
	}
	if t.MaxConcurrentActivities > 0 {
		opts.MaxConcurrentActivityExecutionSize = t.MaxConcurrentActivities
	}
	if t.WorkflowPollers > 0 {
		opts.MaxConcurrentWorkflowTaskPollers = t.WorkflowPollers
	}
	if t.ActivityPollers > 0 {
		opts.MaxConcurrentActivityTaskPollers = t.ActivityPollers
	}
	return opts
}

// ApplyStickyCacheSize sets the sticky cache size of the worker block,
// when set. The SDK keeps one cache per process, so it is set once,
// before any worker starts, by the program rather than by NewWorkers.
func ApplyStickyCacheSize(t config.WorkerTuning) {
	if t.StickyCacheSize > 0 {
		worker.SetStickyWorkflowCacheSize(t.StickyCacheSize)
	}
}

// Start starts every worker; if one fails, those started are stopped.
func (ws *Workers) Start() error {
	for i, w := range ws.workers {
		if err := w.Start(); err != nil {
			for j := i - 1; j >= 0; j-- {
				ws.workers[j].Stop()
			}
			return fmt.Errorf("start the worker of task queue %q: %w", ws.Queues[i], err)
		}
	}
	return nil
}

// Stop stops every worker, the tools' first.
func (ws *Workers) Stop() {
	for i := len(ws.workers) - 1; i >= 0; i-- {
		ws.workers[i].Stop()
	}
}

// Run starts the workers and stops them when interrupt delivers or one
// of them fails for good (its error is answered).
func (ws *Workers) Run(interrupt <-chan any) error {
	if err := ws.Start(); err != nil {
		return err
	}
	defer ws.Stop()
	return ws.Wait(interrupt)
}

// Wait blocks until interrupt delivers (nil) or a started worker fails
// for good (its error); it does not stop the workers.
func (ws *Workers) Wait(interrupt <-chan any) error {
	select {
	case <-interrupt:
		return nil
	case err := <-ws.fatal:
		return fmt.Errorf("worker stopped: %w", err)
	}
}
