package bench

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// outageBefore is the worker before the ramp (issue 51, recovery without
// a stampede): its breakers let one trial through and close on its
// success. BenchmarkOutage and BenchmarkOutageFlapping run each outage
// cell on it and on this tree's worker, side by side.
const outageBefore = "718ef71"

// outageRuns is the runs at once in each outage cell (the 100).
const outageRuns = 100

// outageDown is how long the service is down in an outage cell, from the
// cell's first write (the short outage).
const outageDown = 30 * time.Second

// The long outage (BenchmarkOutageLong): the service is down outageLong,
// longer than the agents' outage.max_wait, outageLongWait, so every run
// waits its bound out while it is down and the ladder hands it on.
const (
	outageLong     = 10 * time.Minute
	outageLongWait = 5 * time.Minute
)

// The flapping service (BenchmarkOutageFlapping): down flapDown, up
// flapUp, flaps times from the cell's first write; then up.
const (
	flapDown = 10 * time.Second
	flapUp   = 10 * time.Second
	flaps    = 3
)

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
// history bytes of a parked run against a run of the control; and the
// stampede: the most writes in flight at the service while it was up
// (each booking takes outageLatency), and the runs parked while it was
// up. Each outage cell runs on the worker of outageBefore and on this
// tree's, one after the other.
func BenchmarkOutage(b *testing.B) {
	var cells []silentCell
	for _, graph := range []bool{false, true} {
		for _, down := range []time.Duration{0, outageDown} {
			cells = append(cells, silentCell{fault: fault{kind: faultOutage, downFor: down}, tool: "book", graph: graph, runs: outageRuns})
		}
	}
	benchOutage(b, cells, outageSides(b), fmt.Sprintf(outageHeader, fmt.Sprint(config.DefaultFailures)), outageSummary.String)
}

// BenchmarkOutageLong (issue 51, the long outage): BenchmarkOutage's
// cells, but the service is down outageLong and the agents wait an outage
// out at most outageLongWait (policies.outage.max_wait). No run may wait
// for ever, nor be lost: each must be handed on by the ladder once it has
// waited its bound. Per cell: how the runs ended (completed, to a
// person, stopped by the ladder, or lost: failed or not ended), how long
// each waited from its first park to the ladder's rung (p50, p99), the
// writes that reached the service while it was down against the
// breaker's bound, and the history bytes of a parked run.
func BenchmarkOutageLong(b *testing.B) {
	var cells []silentCell
	for _, graph := range []bool{false, true} {
		cells = append(cells, silentCell{fault: fault{kind: faultOutage, downFor: outageLong}, tool: "book", graph: graph, runs: outageRuns, maxWait: outageLongWait})
	}
	benchOutage(b, cells, []outageSide{{"now", buildWorker(b)}}, fmt.Sprintf(outageLongHeader, fmt.Sprint(config.DefaultFailures)), outageSummary.long)
}

// BenchmarkOutageFlapping (issue 51, a flapping service): BenchmarkOutage's
// cells on a service down flapDown, up flapUp, flaps times, default
// policies; the same figures. Recovery to end is from the service's
// last return before each run's end. Once the service has booked, the
// worker's breaker opens only after policies.FleetWindow failures in a
// row: those are counted as before the breaker could open.
func BenchmarkOutageFlapping(b *testing.B) {
	var cells []silentCell
	for _, graph := range []bool{false, true} {
		cells = append(cells, silentCell{fault: fault{kind: faultOutage, downFor: flapDown, upFor: flapUp, downs: flaps}, tool: "book", graph: graph, runs: outageRuns})
	}
	benchOutage(b, cells, outageSides(b), fmt.Sprintf(outageHeader, fmt.Sprintf("%d (%d once it booked)", config.DefaultFailures, policies.FleetWindow)), outageSummary.String)
}

// outageSide is a worker build an outage cell runs on.
type outageSide struct{ name, bin string }

// outageSides are the worker of outageBefore and this tree's.
func outageSides(b *testing.B) []outageSide {
	return []outageSide{{"before (" + outageBefore + ")", buildWorkerAt(b, outageBefore)}, {"now", buildWorker(b)}}
}

// benchOutage runs outage cells on one booking service, each outage cell
// on each side's worker build (a control only on the last side's),
// reports each outage cell's figures of the last side, and prints the
// cells' table (header, then row of each cell's summary; a worker column
// when there are several sides), then how the first run of a cell that
// did not end with a booking ended.
func benchOutage(b *testing.B, cells []silentCell, sides []outageSide, header string, row func(outageSummary) string) {
	svc := startBookings()
	defer svc.Close()
	if len(sides) > 1 {
		header = strings.Replace(header, "| service |", "| service | worker |", 1) + "---|"
	}
	for range b.N {
		var rows, notes []string
		for _, c := range cells {
			for i, side := range sides {
				last := i == len(sides)-1
				if c.fault.downFor == 0 && !last {
					continue
				}
				name := outageCellName(c)
				if len(sides) > 1 {
					name += " | " + side.name
				}
				sum := summarizeOutage(b, svc, c, runSilentCell(b, side.bin, svc, c))
				rows = append(rows, fmt.Sprintf("| %s | %s |", name, row(sum)))
				if sum.why != "" {
					notes = append(notes, fmt.Sprintf("%s: %.300s", name, sum.why))
				}
				if c.fault.downFor > 0 && last {
					sum.report(b, shapeName(c.graph))
				}
			}
		}
		fmt.Println(header)
		fmt.Println(strings.Join(rows, "\n"))
		fmt.Println("How the first run of a cell that did not end with a booking ended:")
		fmt.Println(strings.Join(notes, "\n"))
	}
}

// report reports an outage cell's figures as the benchmark's metrics,
// named after its shape.
func (s outageSummary) report(b *testing.B, shape string) {
	b.ReportMetric(float64(100*s.correct/max(s.runs, 1)), shape+"-correct-%")
	b.ReportMetric(float64(s.handed), shape+"-to-a-person")
	b.ReportMetric(float64(s.down), shape+"-calls-while-down")
	b.ReportMetric(float64(s.peak), shape+"-most-in-flight-up")
	b.ReportMetric(float64(s.upParked), shape+"-runs-parked-while-up")
	if s.delays > 0 {
		b.ReportMetric(s.delayP99, shape+"-recovery-to-end-p99-s")
	}
	if s.waited > 0 {
		b.ReportMetric(float64(s.lost), shape+"-lost")
		b.ReportMetric(s.waitedP99, shape+"-waited-p99-s")
	}
}

// outageCellName is a cell's shape and how its service is down (and the
// agents' max_wait when the cell sets it).
func outageCellName(c silentCell) string {
	f := c.fault
	name := shapeName(c.graph) + " | up (control)"
	switch {
	case f.downs > 1:
		name = fmt.Sprintf("%s | down %s, up %s, %d times", shapeName(c.graph), f.downFor, f.upFor, f.downs)
	case f.downFor > 0:
		name = fmt.Sprintf("%s | down %s", shapeName(c.graph), f.downFor)
	}
	if c.maxWait > 0 {
		name += fmt.Sprintf(", max_wait %s", c.maxWait)
	}
	return name
}

func shapeName(graph bool) string {
	if graph {
		return "graph"
	}
	return "free-form"
}

// outageHeader heads the table of outageSummary rows (%s: the failures
// answered before the breaker can open).
const outageHeader = "| shape | service | correct | to a person | stopped or failed | calls while down | before %s failures answered | bound | recovery to end p50 | p99 | max | most writes in flight while up | runs parked while up (parks) | runs parked | parked p50 | history bytes, parked run (p50) | history bytes, run (p50) | wall |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"

// outageWaitedNote is what a call's error says when the run waited its
// outage.max_wait out.
const outageWaitedNote = "waited out this outage"

// outageLongHeader heads the table of outageSummary.long rows.
const outageLongHeader = "| shape | service | completed | to a person | stopped | of them, report says waited | lost | calls while down | before %s failures answered | bound | runs parked | waited p50 | p99 | history bytes, parked run (p50) | p99 | wall |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"

// outageSummary is an outage cell's figures: silentSummary's, and what
// the outage cost.
type outageSummary struct {
	silentSummary
	// down: writes that reached the service while it was down; early:
	// of them, those before it had answered the breaker's threshold of
	// failures; bound: what the worker's breaker lets through in that
	// time (below).
	down, early, bound int
	// delays: the completed runs; delayP50, delayP99 and delayMax:
	// seconds from the service's recovery to their end.
	delays                       int
	delayP50, delayP99, delayMax float64
	// parked: runs that were in waiting_outage; parkedP50 the seconds
	// they were, p50.
	parked    int
	parkedP50 float64
	// peak: the most writes in flight at once at the service while it
	// was up; upParked, upParks: the runs that parked while it was up
	// after its first return (the worker's breaker, not the service,
	// kept them waiting), and their parks then.
	peak, upParked, upParks int
	// bytesParked, bytesRun: history bytes (every generation) of a parked
	// run and of any run, p50; bytesParkedP99 of a parked run, p99.
	bytesParked, bytesRun, bytesParkedP99 float64
	// completed, stopped: runs that completed, and that the ladder
	// stopped (with a result or AgentStopped); lost: those that neither
	// did nor went to a person (failed, or not ended by the cell's time);
	// saysWaited: the stopped runs whose report says the run waited the
	// outage out.
	completed, stopped, lost, saysWaited int
	// waited: the parked runs that did not complete; waitedP50 and
	// waitedP99: seconds from their first park to the ladder's rung (the
	// person, or their end).
	waited               int
	waitedP50, waitedP99 float64
}

func (s outageSummary) String() string {
	down, delay, parked, up := "- | - | -", "- | - | -", "- | -", "-"
	if s.bound >= 0 {
		down = fmt.Sprintf("%d | %d | %d", s.down, s.early, s.bound)
	}
	if s.delays > 0 {
		delay = fmt.Sprintf("%.1fs | %.1fs | %.1fs", s.delayP50, s.delayP99, s.delayMax)
	}
	if s.parked > 0 {
		parked = fmt.Sprintf("%.1fs | %.0f", s.parkedP50, s.bytesParked)
	}
	if s.bound >= 0 {
		up = fmt.Sprintf("%d (%d)", s.upParked, s.upParks)
	}
	return fmt.Sprintf("%d%% | %d | %d | %s | %s | %d | %s | %d | %s | %.0f | %.0fs",
		100*s.correct/max(s.runs, 1), s.handed, s.other, down, delay, s.peak, up, s.parked, parked, s.bytesRun, s.wall.Seconds())
}

// long is the row of a long outage's cell (outageLongHeader).
func (s outageSummary) long() string {
	waited := "- | -"
	if s.waited > 0 {
		waited = fmt.Sprintf("%.1fs | %.1fs", s.waitedP50, s.waitedP99)
	}
	return fmt.Sprintf("%d | %d | %d | %d | %d | %d | %d | %d | %d | %s | %.0f | %.0f | %.0fs",
		s.completed, s.handed, s.stopped, s.saysWaited, s.lost, s.down, s.early, s.bound, s.parked, waited, s.bytesParked, s.bytesParkedP99, s.wall.Seconds())
}

// summarizeOutage judges a cell's runs as summarizeSilent does and reads
// each run's history for its time parked, its end and its size.
//
// The bound on the writes that reach the service while it is down, on
// one worker: every call a run's own breaker lets through still passes
// the worker's breaker of the tool, so the runs' breakers add none; the
// worker's lets through the calls it admits before it can have seen its
// threshold of failures (config.DefaultFailures): early, those that
// reached the service before it had answered that many (since it last
// booked: outage.gate), at least the threshold and more when runs call
// at once; then one trial a cooldown (config.DefaultCooldown) from the
// first write until the service is up for good or the cell ends, as
// each trial comes a cooldown or more after the breaker opened.
func summarizeOutage(b *testing.B, svc *bookings, c silentCell, r cellRuns) outageSummary {
	b.Helper()
	ended := time.Now()
	s := outageSummary{silentSummary: summarizeSilent(svc, r.ends, r.handed, r.modelRequests, r.wall), bound: -1}
	svc.outagesMu.Lock()
	o := *svc.outages[r.queue]
	svc.outagesMu.Unlock()
	if o.firstAt.IsZero() {
		b.Fatalf("%s: no write reached the service", outageCellName(c))
	}
	s.peak = o.peak
	if c.fault.downFor > 0 {
		s.down, s.early = o.down, o.early
		s.bound = o.early + int(minTime(o.upAt, ended).Sub(o.firstAt)/config.DefaultCooldown.D())
	}
	var delays, parkedFor, bytesParked, bytesRun, waited []float64
	for _, e := range r.ends {
		completed := e.err == nil && e.result.Status == workflows.ResultCompleted
		switch {
		case completed:
			s.completed++
		case r.handed[e.id]:
		case e.err == nil:
			s.stopped++
		default:
			report, ok := stopReport(e.err)
			if !ok {
				s.lost++
				break
			}
			s.stopped++
			if text, _ := json.Marshal(report); strings.Contains(string(text)+e.err.Error(), outageWaitedNote) {
				s.saysWaited++
			}
		}
		if e.firstRunID == "" {
			continue // never started
		}
		h := readOutageHistory(b, e)
		bytesRun = append(bytesRun, float64(h.bytes))
		if n := o.parksWhileUp(h.parks); n > 0 {
			s.upParked++
			s.upParks += n
		}
		if h.parked > 0 {
			s.parked++
			parkedFor = append(parkedFor, h.parked.Seconds())
			bytesParked = append(bytesParked, float64(h.bytes))
			if !completed {
				waited = append(waited, h.rung.Sub(h.firstParked).Seconds())
			}
		}
		if up := o.recoveredBy(h.closed); c.fault.downFor > 0 && completed && !up.IsZero() {
			delays = append(delays, h.closed.Sub(up).Seconds())
		}
	}
	s.delays, s.delayP50, s.delayP99, s.delayMax = len(delays), percentile(delays, 50), percentile(delays, 99), percentile(delays, 100)
	s.parkedP50 = percentile(parkedFor, 50)
	s.bytesParked, s.bytesRun, s.bytesParkedP99 = percentile(bytesParked, 50), percentile(bytesRun, 50), percentile(bytesParked, 99)
	s.waited, s.waitedP50, s.waitedP99 = len(waited), percentile(waited, 50), percentile(waited, 99)
	return s
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// outageHistory is what a run's history says of an outage: the time it
// spent in phase waiting_outage (by its AgentPhase search attribute),
// when it first went there, when it reached the ladder's rung (its first
// awaiting_human after that, else its close), when it closed, its size,
// and when it went into waiting_outage, each time.
type outageHistory struct {
	parks                     []time.Time
	parked                    time.Duration
	firstParked, rung, closed time.Time
	bytes                     int
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
		switch signals.Phase(phase) {
		case signals.PhaseWaitingOutage:
			since = at
			h.parks = append(h.parks, at)
			if h.firstParked.IsZero() {
				h.firstParked = at
			}
		case signals.PhaseAwaitingHuman:
			if !h.firstParked.IsZero() && h.rung.IsZero() {
				h.rung = at
			}
		}
	})
	if !since.IsZero() { // parked until it ended (a run ended by the benchmark)
		h.parked += h.closed.Sub(since)
	}
	if h.rung.IsZero() {
		h.rung = h.closed
	}
	return h
}
