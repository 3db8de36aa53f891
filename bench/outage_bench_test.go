package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// outageRuns is the runs at once in each outage cell (the 100).
const outageRuns = 100

// outageDown is how long the service is down in an outage cell, from the
// cell's first write (the short outage).
const outageDown = 30 * time.Second

// BenchmarkOutage (issue 51, "An outage is not a loop"): the outage cells
// of the fault matrix. 100 runs at once per cell on a fresh worker
// process and scripted model, default policies, booking with the
// unchecked write of BenchmarkSilentFailures (book) in each shape; the
// booking service answers every write 503 from the cell's first write
// until outageDown after it, then books. A control cell per shape has
// the service up. Per cell: correct completions (judged against the
// service's bookings), runs handed to a person, the writes that reached
// the service while it was down against the breaker's bound, the delay
// from the service's recovery to each completed run's end (p50, p99),
// the runs that parked and their time in waiting_outage (p50), and the
// history bytes of a parked run against a run of the control.
func BenchmarkOutage(b *testing.B) {
	bin := buildWorker(b)
	svc := startBookings()
	defer svc.Close()
	for range b.N {
		var rows, notes []string
		for _, graph := range []bool{false, true} {
			for _, down := range []time.Duration{0, outageDown} {
				c := silentCell{fault{kind: faultOutage, downFor: down}, "book", graph, outageRuns}
				sum := summarizeOutage(b, svc, c, runSilentCell(b, bin, svc, c))
				rows = append(rows, fmt.Sprintf("| %s | %s |", outageCellName(c), sum))
				if sum.why != "" {
					notes = append(notes, fmt.Sprintf("%s: %.300s", outageCellName(c), sum.why))
				}
				if down > 0 {
					shape := shapeName(graph)
					b.ReportMetric(float64(100*sum.correct/max(sum.runs, 1)), shape+"-correct-%")
					b.ReportMetric(float64(sum.handed), shape+"-to-a-person")
					b.ReportMetric(float64(sum.down), shape+"-calls-while-down")
					b.ReportMetric(sum.delayP99, shape+"-recovery-to-end-p99-s")
				}
			}
		}
		fmt.Printf(outageHeader+"\n", config.DefaultFailures)
		fmt.Println(strings.Join(rows, "\n"))
		fmt.Println("How the first run of a cell that did not end with a booking ended:")
		fmt.Println(strings.Join(notes, "\n"))
	}
}

// outageCellName is a cell's shape and how long its service is down.
func outageCellName(c silentCell) string {
	if c.fault.downFor == 0 {
		return shapeName(c.graph) + " | up (control)"
	}
	return fmt.Sprintf("%s | down %s", shapeName(c.graph), c.fault.downFor)
}

func shapeName(graph bool) string {
	if graph {
		return "graph"
	}
	return "free-form"
}

// outageHeader heads the table of outageSummary rows.
const outageHeader = "| shape | service | correct | to a person | stopped or failed | calls while down | before %d failures answered | bound | recovery to end p50 | p99 | runs parked | parked p50 | history bytes, parked run (p50) | history bytes, run (p50) | wall |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"

// outageSummary is an outage cell's figures: silentSummary's, and what
// the outage cost.
type outageSummary struct {
	silentSummary
	// down: writes that reached the service while it was down; early:
	// of them, those before it had answered the breaker's threshold of
	// failures; bound: what the worker's breaker lets through in that
	// time (below).
	down, early, bound int
	// delays: the completed runs; delayP50 and delayP99: seconds from the
	// service's recovery to their end.
	delays             int
	delayP50, delayP99 float64
	// parked: runs that were in waiting_outage; parkedP50 the seconds
	// they were, p50.
	parked    int
	parkedP50 float64
	// bytesParked, bytesRun: history bytes (every generation) of a parked
	// run and of any run, p50.
	bytesParked, bytesRun float64
}

func (s outageSummary) String() string {
	down, delay, parked := "- | - | -", "- | -", "- | -"
	if s.bound >= 0 {
		down = fmt.Sprintf("%d | %d | %d", s.down, s.early, s.bound)
	}
	if s.delays > 0 {
		delay = fmt.Sprintf("%.1fs | %.1fs", s.delayP50, s.delayP99)
	}
	if s.parked > 0 {
		parked = fmt.Sprintf("%.1fs | %.0f", s.parkedP50, s.bytesParked)
	}
	return fmt.Sprintf("%d%% | %d | %d | %s | %s | %d | %s | %.0f | %.0fs",
		100*s.correct/max(s.runs, 1), s.handed, s.other, down, delay, s.parked, parked, s.bytesRun, s.wall.Seconds())
}

// summarizeOutage judges a cell's runs as summarizeSilent does and reads
// each run's history for its time parked, its end and its size.
//
// The bound on the writes that reach the service while it is down, on
// one worker: every call a run's own breaker lets through still passes
// the worker's breaker of the tool, so the runs' breakers add none; the
// worker's lets through the calls it admits before it can have seen its
// threshold of failures (config.DefaultFailures): early, those that
// reached the service before it had answered that many, at least the
// threshold and more when runs call at once; then one trial a cooldown
// (config.DefaultCooldown) while the service is down.
func summarizeOutage(b *testing.B, svc *bookings, c silentCell, r cellRuns) outageSummary {
	b.Helper()
	s := outageSummary{silentSummary: summarizeSilent(svc, r.ends, r.handed, r.modelRequests, r.wall), bound: -1}
	svc.outagesMu.Lock()
	o := *svc.outages[r.queue]
	svc.outagesMu.Unlock()
	if o.upAt.IsZero() {
		b.Fatalf("%s: no write reached the service", outageCellName(c))
	}
	if c.fault.downFor > 0 {
		s.down, s.early = o.down, o.early
		s.bound = o.early + int(c.fault.downFor/config.DefaultCooldown.D())
	}
	var delays, parkedFor, bytesParked, bytesRun []float64
	for _, e := range r.ends {
		if e.firstRunID == "" {
			continue // never started
		}
		h := readOutageHistory(b, e)
		bytesRun = append(bytesRun, float64(h.bytes))
		if h.parked > 0 {
			s.parked++
			parkedFor = append(parkedFor, h.parked.Seconds())
			bytesParked = append(bytesParked, float64(h.bytes))
		}
		if c.fault.downFor > 0 && e.err == nil && e.result.Status == workflows.ResultCompleted {
			delays = append(delays, h.closed.Sub(o.upAt).Seconds())
		}
	}
	s.delays, s.delayP50, s.delayP99 = len(delays), percentile(delays, 50), percentile(delays, 99)
	s.parkedP50 = percentile(parkedFor, 50)
	s.bytesParked, s.bytesRun = percentile(bytesParked, 50), percentile(bytesRun, 50)
	return s
}

// outageHistory is what a run's history says of an outage: the time it
// spent in phase waiting_outage (by its AgentPhase search attribute),
// when it closed, and its size.
type outageHistory struct {
	parked time.Duration
	closed time.Time
	bytes  int
}

// readOutageHistory reads every generation of a run's history.
func readOutageHistory(b *testing.B, e runOutcome) outageHistory {
	b.Helper()
	var h outageHistory
	var since time.Time // when the run last went into waiting_outage, while it is there
	eachGeneration(b, e.id, e.firstRunID, func(_ int, ev *historypb.HistoryEvent) {
		h.bytes += proto.Size(ev)
		at := ev.GetEventTime().AsTime()
		h.closed = at
		p := ev.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()[signals.AttrAgentPhase]
		if p == nil {
			return
		}
		var phase string
		if err := converter.GetDefaultDataConverter().FromPayload(p, &phase); err != nil {
			b.Fatal(err)
		}
		if !since.IsZero() {
			h.parked += at.Sub(since)
			since = time.Time{}
		}
		if signals.Phase(phase) == signals.PhaseWaitingOutage {
			since = at
		}
	})
	if !since.IsZero() { // parked until it ended (a run ended by the benchmark)
		h.parked += h.closed.Sub(since)
	}
	return h
}
