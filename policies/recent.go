package policies

// KeepRecent bounds a run's lists of loops and escalations: the latest
// are kept, the older ones counted. A long run (handed on from agent to
// agent, each with its own step ceiling) would otherwise carry every
// loop it ever met into each continue-as-new, and list them in each
// status query.
const KeepRecent = 64

// Overflow is how many of the oldest entries a list of length drops to
// keep at most keep.
func Overflow(length, keep int) int {
	if keep < 0 {
		keep = 0
	}
	return max(length-keep, 0)
}

// TallyRungs adds the rungs of dropped escalations to counts (by rung),
// so a count over the whole run (the retry rung's backoff attempt) stays
// exact after they are dropped.
func TallyRungs(counts map[string]int, dropped []string) map[string]int {
	if len(dropped) == 0 {
		return counts
	}
	if counts == nil {
		counts = map[string]int{}
	}
	for _, r := range dropped {
		counts[r]++
	}
	return counts
}
