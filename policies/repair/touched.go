package repair

// touched is the set of locations one round has changed, and of their
// ancestors, so that checking a new edit against all of them costs its
// depth, not the number of edits so far (a round may make thousands).
type touched struct {
	at        map[string]bool // changed locations
	ancestors map[string]bool // proper prefixes of changed locations
}

// locKey names a location uniquely (pointer writes the root and the
// empty top-level key both as "/").
func locKey(steps []string) string {
	if len(steps) == 0 {
		return ""
	}
	return pointer(steps)
}

func newTouched() touched {
	return touched{at: map[string]bool{}, ancestors: map[string]bool{}}
}

// conflicts reports whether any edit's location is, is inside, or
// contains a location already changed.
func (t touched) conflicts(edits []edit) bool {
	for _, e := range edits {
		p := locKey(e.at)
		if t.at[p] || t.ancestors[p] {
			return true
		}
		for i := range len(e.at) {
			if t.at[locKey(e.at[:i])] {
				return true
			}
		}
	}
	return false
}

func (t touched) add(steps []string) {
	t.at[locKey(steps)] = true
	for i := range len(steps) {
		t.ancestors[locKey(steps[:i])] = true
	}
}
