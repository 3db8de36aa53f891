package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// waitSwitch is what the run's waits for people share with a switch, the
// run continuing as new while it waits (waiting_continue.go): when each
// wait began, so the next generation keeps its deadline. Whether the
// switch is under way is the run's life's (package life).
type waitSwitch struct {
	starts map[string]time.Time
}

func newWaitSwitch() waitSwitch {
	return waitSwitch{starts: map[string]time.Time{}}
}

// started is when the wait at node began: now, unless a generation
// before this one began it.
func (s *waitSwitch) started(ctx workflow.Context, node string) time.Time {
	if since, ok := s.starts[node]; ok {
		return since
	}
	now := workflow.Now(ctx)
	s.starts[node] = now
	return now
}

// since is when the wait at node began, for the next generation; keep
// puts back one the generation before began.
func (s *waitSwitch) since(node string) time.Time       { return s.starts[node] }
func (s *waitSwitch) keep(node string, since time.Time) { s.starts[node] = since }

// forget drops the wait at node: a later wait there has a whole timeout.
func (s *waitSwitch) forget(node string) { delete(s.starts, node) }
