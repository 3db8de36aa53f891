package main

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/api/enums/v1"
)

// An eval whose runs no worker took could not run: it is not scored, as
// if every case had failed, but said so. A run was taken once its first
// workflow task completed, which a run that closed or answered its
// messages did.

// takenRuns counts the runs an eval started and those a worker took.
type takenRuns struct {
	started, taken int
	startErr       error // why the first run that did not start did not
}

// startFailed notes a run that could not be started.
func (r *evalRunner) startFailed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.takes.startErr == nil {
		r.takes.startErr = err
	}
}

// started notes a run started, and whether a worker took it.
func (r *evalRunner) started(taken bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.takes.started++
	if taken {
		r.takes.taken++
	}
}

// untaken says why the eval could not run when no run of it was taken.
func (r *evalRunner) untaken() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return untakenError(r.takes, r.taskQueue, r.timeout)
}

// untakenError is nil when a worker took a run of the eval.
func untakenError(t takenRuns, queue string, timeout time.Duration) error {
	switch {
	case t.taken > 0:
		return nil
	case t.started == 0 && t.startErr != nil:
		return fmt.Errorf("eval: no run could be started, and nothing is scored: %w", t.startErr)
	case t.started == 0:
		return nil // nothing to run
	}
	return fmt.Errorf("eval: no worker took the cases on task queue %s: none of its %d run(s) had its first workflow task completed within --timeout %s, and nothing is scored",
		queue, t.started, timeout)
}

// tookFirstTask says whether id's run had a workflow task completed,
// read from its history on a context of its own (the eval's may be
// done). A history it cannot read counts as taken: the eval claims no
// missing worker it did not see.
func (r *evalRunner) tookFirstTask(id string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), endGrace)
	defer cancel()
	it := r.c.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return true
		}
		if e.GetEventType() == enums.EVENT_TYPE_WORKFLOW_TASK_COMPLETED {
			return true
		}
	}
	return false
}
