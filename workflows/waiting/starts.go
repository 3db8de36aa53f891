package waiting

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// Starts are when each wait for people began, by node, so a generation
// that takes a wait up keeps its deadline. The runner keeps them for its
// generation; the next one gets them back from what the run carried.
type Starts struct {
	at map[string]time.Time
	// kept are the waits a generation before began.
	kept map[string]bool
}

// NewStarts are the starts of a generation that has begun no wait yet.
func NewStarts() Starts {
	return Starts{at: map[string]time.Time{}, kept: map[string]bool{}}
}

// Started is when the wait at node began: now, unless a generation
// before this one began it.
func (s *Starts) Started(ctx workflow.Context, node string) time.Time {
	if since, ok := s.at[node]; ok {
		return since
	}
	now := workflow.Now(ctx)
	s.at[node] = now
	return now
}

// Since is when the wait at node began, for the next generation; Keep
// puts back one the generation before began; Carried says whether the
// wait at node is one of those.
func (s *Starts) Since(node string) time.Time { return s.at[node] }
func (s *Starts) Keep(node string, since time.Time) {
	s.at[node] = since
	s.kept[node] = true
}
func (s *Starts) Carried(node string) bool { return s.kept[node] }

// Forget drops the wait at node: a later wait there has a whole timeout,
// and is its generation's own.
func (s *Starts) Forget(node string) {
	delete(s.at, node)
	delete(s.kept, node)
}
