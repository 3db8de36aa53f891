package workflows

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
// rung's attempt counts the dropped retries (Run.DroppedRungs).

// recordLoop lists a loop the detector found.
func (r *runner) recordLoop(ctx workflow.Context, l signals.Loop) {
	r.run.Loops = append(r.run.Loops, l)
	if drop := policies.Overflow(len(r.run.Loops), policies.KeepRecent); drop > 0 && r.boundedListsOn(ctx) {
		r.run.Loops = slices.Clone(r.run.Loops[drop:])
		r.run.LoopsDropped += drop
	}
}

// recordEscalation lists a rung the run climbed.
func (r *runner) recordEscalation(ctx workflow.Context, e Escalation) {
	r.run.Escalations = append(r.run.Escalations, e)
	if drop := policies.Overflow(len(r.run.Escalations), policies.KeepRecent); drop > 0 && r.boundedListsOn(ctx) {
		r.run.DroppedRungs = policies.TallyRungs(r.run.DroppedRungs, rungNames(r.run.Escalations[:drop]))
		r.run.Escalations = slices.Clone(r.run.Escalations[drop:])
		r.run.EscalationsDropped += drop
	}
}

// boundedListsOn says whether the lists are bounded: runs recorded before
// kept them whole. Asked only when a list outgrows the bound.
func (r *runner) boundedListsOn(ctx workflow.Context) bool {
	return versionOf(ctx, versionBoundedLists, 1) >= 1
}

// rungsTried names the rungs the run climbed, for a stop's report.
func (r *runner) rungsTried() string {
	tried := strings.Join(rungNames(r.run.Escalations), ", ")
	if n := r.run.EscalationsDropped; n > 0 {
		return fmt.Sprintf("%d earlier, then %s", n, tried)
	}
	return tried
}

// keptPrefix cuts a list that dropped its first dropped entries back to
// the first total entries of the run (a checkpoint's length): the kept
// ones among them, and how many of them are dropped.
func keptPrefix[T any](list []T, dropped, total int) ([]T, int) {
	keep := min(max(total-dropped, 0), len(list))
	return slices.Clone(list[:keep]), max(total, 0) - keep
}
