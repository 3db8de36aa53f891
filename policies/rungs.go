package policies

// LoopSituation is what the workflow knows of a loop when it picks a rung:
// enough to say which rungs can act on it now.
type LoopSituation struct {
	InGraph        bool   // the loop is in an explicit graph (else free-form calls)
	LoopTool       string // the tool the loop is about ("" when none)
	HasFallback    bool   // LoopTool exists and has a fallback
	BreakerOpen    bool   // LoopTool's breaker is open already
	OffCycleEdge   bool   // graph: an edge leaves the cycle (OffCycleExit; before explore-cycle, at the node where the loop was seen)
	BlockableCalls int    // free-form: calls in the loop's last period that explore can block
	LoopStart      int    // LoopSpan: 0 means nothing before the loop, no rollback
	EdgeAroundLoop bool   // graph: EdgeAround for the node before the loop
	HandoffTargets int    // agents the run may still be handed to (allowed, not in its handoff path)

	// What the rules of rungs by class (RungHelps) read; ByClass says they
	// apply, else RungAvailable alone decides, as for runs begun before.
	ByClass bool
	// Class is how the loop's failing call (LoopCall of LoopTool) failed:
	// its error class, "" when none of the loop's calls failed.
	Class Class
	// Retried: Temporal already retried that call under the tool's retry
	// policy (a retryable class, more than one attempt allowed).
	Retried bool
	// OtherProvider: LoopTool's fallback is run by another provider than
	// LoopTool (both name their provider, and they differ).
	OtherProvider bool
	// OtherTools is how many tools the model may call besides the loop's.
	OtherTools int
	// CanRepair: the agent repairs arguments (repair.max_attempts > 0) and
	// the loop is of free-form calls, which a repair can give new ones.
	CanRepair bool
}

// RungAvailable says whether a rung can act on the loop now, so the
// ladder skips one that cannot. Retry, human and stop always can;
// substitute needs a fallback whose breaker is not open already (an open
// breaker already substitutes); explore needs, in a graph, an edge off
// the cycle and, free-form, calls to block; rollback needs something
// before the loop and, in a graph, another way out of the node before it;
// handoff needs a target. Any other rung is not available.
func RungAvailable(rung string, s LoopSituation) bool {
	switch rung {
	case RungRetry, RungHuman, RungStop:
		return true
	case RungSubstitute:
		return s.HasFallback && !s.BreakerOpen
	case RungExplore:
		if s.InGraph {
			return s.OffCycleEdge
		}
		return s.BlockableCalls > 0
	case RungRollback:
		return s.LoopStart > 0 && (!s.InGraph || s.EdgeAroundLoop)
	case RungHandoff:
		return s.HandoffTargets > 0
	default:
		return false
	}
}

// ChooseRung climbs the ladder to the next rung available for s and
// answers it; RungStop when the ladder is exhausted, as a run that has
// tried every way out ends with a report. With s.ByClass, the loop's
// error class picks (RungHelps) and a loop of invalid arguments goes to
// RungRepair first, once per climb (RepairFirst).
func ChooseRung(l *Ladder, s LoopSituation) string {
	if s.ByClass && RepairFirst(l, s) {
		return RungRepair
	}
	rung, ok := l.Climb(func(r string) bool {
		if s.ByClass {
			return RungHelps(r, s)
		}
		return RungAvailable(r, s)
	})
	if !ok {
		return RungStop
	}
	return rung
}

// LoopCall is a call of the loop's last period, as LoopTool sees it.
type LoopCall struct {
	Tool   string
	Failed bool
	Class  Class // how it failed, when known
}

// LoopTool picks the tool a loop is about (the one substitute replaces)
// from the calls of its last period, in order: the first failing call's
// tool, else the first call's tool, else "".
func LoopTool(calls []LoopCall) string {
	for _, c := range calls {
		if c.Failed {
			return c.Tool
		}
	}
	if len(calls) > 0 {
		return calls[0].Tool
	}
	return ""
}

// RungCount counts how many times rung appears in taken (the actions of
// the run's escalations, the one being taken included): for the retry
// rung it is the backoff attempt, so each retry waits longer than the
// last (the first is attempt 1).
func RungCount(taken []string, rung string) int {
	n := 0
	for _, t := range taken {
		if t == rung {
			n++
		}
	}
	return n
}
