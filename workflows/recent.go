package workflows

import "slices"

// A run keeps its latest loops and escalations (policies.KeepRecent) and
// counts the older ones (ladder/record.go); an edit cuts both lists back
// to a checkpoint's length.

// keptPrefix cuts a list that dropped its first dropped entries back to
// the first total entries of the run (a checkpoint's length): the kept
// ones among them, and how many of them are dropped.
func keptPrefix[T any](list []T, dropped, total int) ([]T, int) {
	keep := min(max(total-dropped, 0), len(list))
	return slices.Clone(list[:keep]), max(total, 0) - keep
}
