package policies

// RungRepair is not a rung of the configured ladder: a loop of calls the
// tool refused as invalid arguments is answered by repairing them first
// (RepairFirst), before the ladder is climbed. Waiting, another tool with
// the same arguments or a person do not fix arguments; a repair may.
const RungRepair = "repair"

// RungHelps is RungAvailable narrowed by the loop's error class, so that
// the ladder spends no rung that cannot help (rungs by class):
//
//   - retry waits and lets the same call go again: it can help only a
//     failure that time may cure (transient, a timeout, an unknown error,
//     a result that failed its check or could not be checked, or no
//     failure at all), and only if Temporal has not just retried
//     that very call under the tool's retry policy (an open breaker is not
//     cured by a wait of seconds: its cooldown decides);
//   - substitute does not help a fatal error (credentials, permissions)
//     unless the fallback is run by another provider;
//   - explore, for free-form calls, blocks the loop's calls and asks the
//     model for something else, and rollback asks it again from before
//     the loop: when the tool is down (transient, timeout, fatal, open
//     breaker) new arguments will not bring it back, so they help only if
//     the model has another tool to turn to.
//
// Graph loops explore and roll back as before: another edge is another way.
func RungHelps(rung string, s LoopSituation) bool {
	if !RungAvailable(rung, s) {
		return false
	}
	switch rung {
	case RungRetry:
		return TimeMayCure(s.Class) && !s.Retried
	case RungSubstitute:
		return s.Class != Fatal || s.OtherProvider
	case RungExplore, RungRollback:
		return s.InGraph || s.OtherTools > 0 || !ToolDown(s.Class)
	default:
		return true
	}
}

// RepairFirst says whether a loop goes to RungRepair before the ladder:
// its failing call was refused as invalid arguments, the run may repair
// them, and no repair was tried since the ladder last reset. It marks the
// ladder, so the next loop climbs it.
func RepairFirst(l *Ladder, s LoopSituation) bool {
	if s.Class != InvalidArgs || !s.CanRepair || l.Repaired {
		return false
	}
	l.Repaired = true
	return true
}

// TimeMayCure: a failure of this class may go away if the same call is
// made again later ("" is a loop without failures).
func TimeMayCure(c Class) bool {
	switch c {
	case "", Transient, Timeout, Unclassified, Unverified, OutcomeUnknown:
		return true
	}
	return false
}

// ToolDown: a failure of this class says the tool cannot serve, whatever
// the arguments.
func ToolDown(c Class) bool {
	switch c {
	case Transient, Timeout, Fatal, CircuitOpen:
		return true
	}
	return false
}

// RetriedByTemporal: a failure of this class was retried by Temporal under
// a retry policy of maxAttempts (0: unlimited) before the call failed.
func RetriedByTemporal(c Class, maxAttempts int) bool {
	return (c.Retryable() || c == Timeout) && maxAttempts != 1
}

// LoopFailure is the failing call of the loop as LoopTool picks it: the
// first failing call, its tool and class ("", "" when none failed).
func LoopFailure(calls []LoopCall) (tool string, class Class) {
	for _, c := range calls {
		if c.Failed {
			return c.Tool, c.Class
		}
	}
	return "", ""
}

// OtherTools counts the tools of have that are not among the loop's
// calls.
func OtherTools(have []string, calls []LoopCall) int {
	n := 0
	for _, t := range have {
		used := false
		for _, c := range calls {
			used = used || c.Tool == t
		}
		if !used {
			n++
		}
	}
	return n
}

// OtherProvider: a fallback run by another provider than its tool's, so
// what failed fatally (an account, a key) is not what it uses. Unnamed
// providers are not known to differ.
func OtherProvider(tool, fallback string) bool {
	return tool != "" && fallback != "" && tool != fallback
}
