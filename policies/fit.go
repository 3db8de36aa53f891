package policies

// ClipMarkerBytes is what a clipped message costs besides what it keeps:
// the marker saying how much was cut.
const ClipMarkerBytes = 200

// FitMessages answers how many bytes each message of a conversation may
// keep so that the whole fits in budget: unprotected messages (old
// observations) are cut oldest first, each down to nothing but a marker,
// until the rest fits; protected ones (the instructions, the task, the
// last step) are cut only when they alone exceed the budget, and then all
// share it evenly. keep[i] == sizes[i] means message i is whole; a cut
// message costs keep[i] plus ClipMarkerBytes.
func FitMessages(sizes []int, protected []bool, budget int) []int {
	keep := append([]int(nil), sizes...)
	total := 0
	for _, s := range sizes {
		total += s
	}
	for i := 0; i < len(keep) && total > budget; i++ {
		if protected[i] {
			continue
		}
		// Cut i just enough, or whole.
		cut := min(keep[i], total-budget+ClipMarkerBytes)
		total += ClipMarkerBytes - cut
		keep[i] -= cut
	}
	if total <= budget {
		return keep
	}
	// The protected messages alone are too large: they share what is
	// left, the small ones kept whole.
	left, open := budget, 0
	for i := range keep {
		switch {
		case !protected[i]:
			left -= keep[i] + ClipMarkerBytes
		default:
			open++
		}
	}
	share := max(left/max(open, 1)-ClipMarkerBytes, 0)
	for i := range keep {
		if protected[i] && keep[i] > share {
			keep[i] = share
		}
	}
	return keep
}
