package bench

import (
	"testing"
)

// readBackDownCells are the matrix's read-back-down cells: the writes of
// book_rb book, and its read-back, get_booking, answers 503, for the
// cell's first readDownFor (transient) or for good, in both shapes. A
// read-back that cannot read says nothing of the write: repeats of it are
// not to be written again (repeats answered by key: 0).
func readBackDownCells() []silentCell {
	var cells []silentCell
	for _, graph := range []bool{false, true} {
		for _, permanent := range []bool{false, true} {
			cells = append(cells, silentCell{fault: fault{kind: faultReadDown, permanent: permanent}, tool: "book_rb", graph: graph, runs: silentRuns})
		}
	}
	return cells
}

// BenchmarkSilentFailuresReadBackDown runs the read-back-down cells of
// BenchmarkSilentFailures alone.
func BenchmarkSilentFailuresReadBackDown(b *testing.B) {
	bin := buildWorker(b)
	svc := startBookings()
	defer svc.Close()
	for range b.N {
		runSilentCells(b, bin, svc, readBackDownCells())
	}
}
