package policies

// NoOp is not a call's failure but how the loop detector sees a write
// that answered a repeat of itself (same tool, same canonical arguments)
// exactly as it answered the call before: it changed nothing, so it is no
// progress (NoOpRepeat).
const NoOp Class = "no_op"

// NoOpRepeat says whether a write's result repeats its previous try's: both
// succeeded with the same canonical result, and the tool is not
// repeatable (a reminder, a ping, whose repeats are work).
func NoOpRepeat(repeatable bool, previous, result []byte) bool {
	if repeatable || previous == nil {
		return false
	}
	a, errA := CanonicalJSON(previous)
	b, errB := CanonicalJSON(result)
	return errA == nil && errB == nil && string(a) == string(b)
}
