package ladder

import (
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// A run keeps its latest loops and escalations (policies.KeepRecent) and
// counts the older ones: both lists grew by one per loop for the life of
// the run, and were carried into every generation and listed in every
// status query. What a decision reads of them stays exact: the retry
// rung's attempt counts the dropped retries (DroppedRungs).

// recordLoop lists a loop the detector found.
func (e *Escape) recordLoop(ctx workflow.Context, l signals.Loop) {
	s := e.s
	s.Loops = append(s.Loops, l)
	if drop := policies.Overflow(len(s.Loops), policies.KeepRecent); drop > 0 && e.boundedListsOn(ctx) {
		s.Loops = slices.Clone(s.Loops[drop:])
		s.LoopsDropped += drop
	}
}

// RecordEscalation lists a rung the run climbed.
func (e *Escape) RecordEscalation(ctx workflow.Context, esc Escalation) {
	*e.esc = append(*e.esc, esc)
	if drop := policies.Overflow(len(*e.esc), policies.KeepRecent); drop > 0 && e.boundedListsOn(ctx) {
		*e.rungs = policies.TallyRungs(*e.rungs, rungNames((*e.esc)[:drop]))
		*e.esc = slices.Clone((*e.esc)[drop:])
		*e.dropped += drop
	}
}

// boundedListsOn says whether the lists are bounded: runs recorded before
// kept them whole. Asked only when a list outgrows the bound.
func (e *Escape) boundedListsOn(ctx workflow.Context) bool {
	return e.on(ctx, e.gates.BoundedLists)
}

// RungsTried names the rungs the run climbed, for a stop's report.
func (e *Escape) RungsTried() string {
	tried := strings.Join(rungNames(*e.esc), ", ")
	if n := *e.dropped; n > 0 {
		return fmt.Sprintf("%d earlier, then %s", n, tried)
	}
	return tried
}

// RetryAttempt is how many retry rungs the run climbed, the dropped ones
// counted: the retry rung's backoff grows with it.
func (e *Escape) RetryAttempt() int {
	return policies.RungCount(rungNames(*e.esc), policies.RungRetry) + (*e.rungs)[policies.RungRetry]
}

// rungNames are the rungs of es, in order.
func rungNames(es []Escalation) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Action)
	}
	return out
}
