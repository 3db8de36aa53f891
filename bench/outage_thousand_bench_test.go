package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/unstuck-dev/unstuck/config"
)

// outageThousand is the runs at once of each cell of
// BenchmarkOutageThousand (the 1,000).
const outageThousand = 1000

// BenchmarkOutageThousand (issue 51, the fleet at 1,000): BenchmarkOutage's
// cells, the booking service down outageDown from the cell's first write
// and a control per shape, at 1,000 runs at once per cell instead of 100,
// on one worker process, on the worker before the ramp and this tree's;
// the same figures. A cell keeps silentCellTime:
// 1,000 runs end in a little over a minute, the outage included.
func BenchmarkOutageThousand(b *testing.B) {
	benchOutage(b, upAndDownCells("book", outageThousand), outageSides(b), fmt.Sprintf(outageHeader, fmt.Sprint(config.DefaultFailures)), outageSummary.String)
}

// upAndDownCells are a control (service up) and an outage of outageDown
// for each shape, runs at once, the runs calling tool.
func upAndDownCells(tool string, runs int) []silentCell {
	var cells []silentCell
	for _, graph := range []bool{false, true} {
		for _, down := range []time.Duration{0, outageDown} {
			cells = append(cells, silentCell{fault: fault{kind: faultOutage, downFor: down}, tool: tool, graph: graph, runs: runs})
		}
	}
	return cells
}

// BenchmarkModelOutageThousand (issue 51, the model at 1,000):
// BenchmarkModelOutage's cells, the model and its fallback down
// outageDown from the cell's first request and a control per shape, at
// 1,000 runs at once per cell on one worker process; the same figures.
func BenchmarkModelOutageThousand(b *testing.B) {
	benchModelOutage(b, upAndDownCells("", outageThousand), outageHeader, outageSummary.String)
}
