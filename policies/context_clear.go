package policies

// ClearBefore is the step before which a conversation counted over its
// prompt budget clears its tool results (policies.context), or ok false
// when no result is left to clear (the oldest turns are summarized next).
// It keeps the results of the last keepLast steps whole, and when those
// alone are over the budget (the same step is counted over again), only
// the last step's. step is the step of the request being made; results of
// steps before cleared are cleared already.
func ClearBefore(step, keepLast, cleared int) (before int, ok bool) {
	if want := step - keepLast; want > cleared {
		return want, true
	}
	if last := step - 1; last > cleared {
		return last, true
	}
	return cleared, false
}
