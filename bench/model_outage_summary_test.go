package bench

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/unstuck-dev/unstuck/workflows"
)

// summarizeModelOutage is a model outage cell's figures, in the outage
// cells' summary (outageSummary): each run judged by its output
// (lookedUp) and its end, and its history read for its time parked, its
// end and its size. The requests while down and their bound are both
// models' (modelDown.bound).
func summarizeModelOutage(b *testing.B, c silentCell, r cellRuns, down *modelDown) outageSummary {
	b.Helper()
	ended := time.Now()
	s := outageSummary{bound: -1}
	s.runs, s.wall, s.modelPerRun = len(r.ends), r.wall, float64(r.modelRequests)/float64(max(len(r.ends), 1))
	if c.fault.downFor > 0 {
		s.down = down.down[modelPrimary] + down.down[modelFallback]
		s.early = down.early[modelPrimary] + down.early[modelFallback]
		s.bound = down.bound(ended)
	}
	var f parkFigures
	for _, e := range r.ends {
		completed := s.judgeModelRun(c.graph, e, r.handed[e.id])
		if e.firstRunID == "" {
			continue // never started
		}
		h := readOutageHistory(b, e)
		var up time.Time // the models' return before the run closed; zero: none
		if c.fault.downFor > 0 {
			up = down.clock.recoveredBy(h.closed)
		}
		f.add(h, completed, up)
	}
	f.into(&s)
	return s
}

// judgeModelRun counts how run e ended in s, and says whether it
// completed: correct (the output its shape leads to) or wrong; handed
// to a person; stopped by the ladder (a stop's report, or a result that
// is not completed), and whether the report says the outage was waited
// out; or lost (failed otherwise, or not ended by the cell's time).
func (s *outageSummary) judgeModelRun(graph bool, e runOutcome, handed bool) bool {
	completed := e.err == nil && e.result.Status == workflows.ResultCompleted
	if completed {
		s.completed++
	}
	switch {
	case handed:
		s.handed++
		return completed
	case completed && lookedUp(graph, e.result.Output):
		s.correct++
		return true
	case completed:
		s.wrong++
		s.note("completed with " + string(e.result.Output))
		return true
	}
	s.other++
	s.note(fmt.Sprintf("%s %v %s", e.result.Status, e.err, e.result.Reason))
	report, stopped := stopReport(e.err)
	if e.err != nil && !stopped {
		s.lost++
		return false
	}
	s.stopped++
	if text, _ := json.Marshal(report); strings.Contains(string(text)+fmt.Sprint(e.err), outageWaitedNote) {
		s.saysWaited++
	}
	return false
}

// parkFigures gathers what the runs' histories say of an outage, for an
// outageSummary: the seconds each completed run closed after the
// service's recovery, each parked run's time parked and its history
// bytes, every run's bytes, and the seconds each parked run that did not
// complete waited from its first park to the ladder's rung.
type parkFigures struct {
	delays, parkedFor, bytesParked, bytesRun, waited []float64
	parked                                           int
}

// add takes a run's history; up is when the service came back before
// the run closed (zero: it had not, or was never down).
func (f *parkFigures) add(h outageHistory, completed bool, up time.Time) {
	f.bytesRun = append(f.bytesRun, float64(h.bytes))
	if completed && !up.IsZero() {
		f.delays = append(f.delays, h.closed.Sub(up).Seconds())
	}
	if h.parked == 0 {
		return
	}
	f.parked++
	f.parkedFor = append(f.parkedFor, h.parked.Seconds())
	f.bytesParked = append(f.bytesParked, float64(h.bytes))
	if !completed {
		f.waited = append(f.waited, h.rung.Sub(h.firstParked).Seconds())
	}
}

// into writes the figures' counts and percentiles into s.
func (f *parkFigures) into(s *outageSummary) {
	s.parked = f.parked
	s.delays, s.delayP50, s.delayP99 = len(f.delays), percentile(f.delays, 50), percentile(f.delays, 99)
	s.parkedP50 = percentile(f.parkedFor, 50)
	s.bytesRun = percentile(f.bytesRun, 50)
	s.bytesParked, s.bytesParkedP99 = percentile(f.bytesParked, 50), percentile(f.bytesParked, 99)
	s.waited, s.waitedP50, s.waitedP99 = len(f.waited), percentile(f.waited, 50), percentile(f.waited, 99)
}
