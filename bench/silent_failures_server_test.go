package bench

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// fault is how the booking tool fails a run: how its failing tries look
// (kind) and whether they stop after two tries (transient) or never do;
// or, for an outage, how long the service is down for every run, and for
// a flapping one how long it is up between and how many times it goes
// down.
type fault struct {
	kind      string // faultClear, faultBody, faultNoEffect, faultReadDown or faultOutage
	permanent bool
	// faultOutage: down for downFor from the cell's first write; with
	// downs above 1, then up for upFor and down for downFor again, downs
	// times in all.
	downFor, upFor time.Duration
	downs          int
}

const (
	faultClear    = "clear"            // 503, nothing booked
	faultBody     = "silent-body"      // 200, booked, but the body names another room and a confirmation that is not there
	faultNoEffect = "silent-no-effect" // 200, a body like success's, nothing booked
	faultReadDown = "read-back-down"   // writes book; get_booking answers 503 (readDownFor, or for good)
	faultOutage   = "outage"           // every write of the cell 503, nothing booked, from its first until downFor after it (each time it is down); then no fault
)

// outageLatency is how long the booking service takes to book a write of
// an outage cell: a booking takes a while, so writes that arrive together
// are in flight together and a stampede shows (a 503 answers at once).
const outageLatency = 200 * time.Millisecond

// readDownFor is how long the reads of a transient read-back-down cell
// fail, from the cell's start: longer than one read-back's retries.
const readDownFor = 20 * time.Second

// bookings is the benchmark's real HTTP tool server: a booking service
// that keeps each run's bookings (by the Unstuck-Workflow-Id header) and
// fails each run's writes as its cell's fault says. It honours
// Idempotency-Key as the tool contract asks (a key that booked answers
// that booking and books nothing), and counts from its own side the
// bookings each run made, so a write made twice shows here whatever the
// engine believes.
type bookings struct {
	*httptest.Server
	mu     sync.Mutex
	faults map[string]fault     // by task queue: a run's id is queue-i
	began  map[string]time.Time // by task queue: when its cell began
	runs   map[string]*bookingRun
	seq    int
	// outages are the outage cells', by task queue, under a lock of their
	// own: a write is counted as it arrives, not once the service's lock
	// lets it in.
	outagesMu sync.Mutex
	outages   map[string]*outage
}

// outage is an outage cell as the service saw it: its fault, its first
// write and when it comes back for good (zero before the first write),
// the writes that arrived while it was down, of them those that arrived
// before the worker's breaker can have opened (early, below), the 503s
// it answered, and of them those since it last booked (streak), and
// whether it has booked (answered); and the writes in flight while it is
// up, and the most of them at once (peak).
//
// The worker's breaker of a tool (policies.FleetBreaker) opens when the
// tool's last config.DefaultFailures calls failed and none of its last
// policies.FleetWindow succeeded: before the service books, that is
// DefaultFailures failures in a row; once it has booked, FleetWindow.
// A write that arrives while down before the service has answered that
// many since it last booked is early: no breaker can have stopped it.
type outage struct {
	fault
	firstAt, upAt               time.Time
	down, early, failed, streak int
	answered                    bool
	inFlight, peak              int
}

// span is the time from the outage's first write to its end for good.
func (o *outage) span() time.Duration {
	n := max(o.downs, 1)
	return time.Duration(n)*o.downFor + time.Duration(n-1)*o.upFor
}

// downAt says whether the service is down at t.
func (o *outage) downAt(t time.Time) bool {
	d := t.Sub(o.firstAt)
	return !o.firstAt.IsZero() && d >= 0 && d < o.span() && d%(o.downFor+o.upFor) < o.downFor
}

// recoveredBy is when the service last came back at or before t (zero
// when it had not yet).
func (o *outage) recoveredBy(t time.Time) time.Time {
	var at time.Time
	for i := range max(o.downs, 1) {
		up := o.firstAt.Add(time.Duration(i)*(o.downFor+o.upFor) + o.downFor)
		if up.After(t) {
			break
		}
		at = up
	}
	return at
}

// parksWhileUp is how many of parks (times a run went into
// waiting_outage) came while the service was up, after its first return.
func (o *outage) parksWhileUp(parks []time.Time) int {
	n := 0
	for _, t := range parks {
		if !o.recoveredBy(t).IsZero() && !o.downAt(t) {
			n++
		}
	}
	return n
}

// gate is the 503s in a row the worker's breaker needs before it opens.
func (o *outage) gate() int {
	if o.answered {
		return policies.FleetWindow
	}
	return config.DefaultFailures
}

// bookingRun is one run as the server saw it.
type bookingRun struct {
	requests int                // every request: writes and read-backs
	writes   int                // write requests, the tries the fault counts
	byKey    map[string]booking // the booking each Idempotency-Key made
	byConf   map[string]booking
	keyed    int // write requests a key answered without booking again
}

type booking struct{ Room, Confirmation string }

func startBookings() *bookings {
	s := &bookings{faults: map[string]fault{}, began: map[string]time.Time{}, runs: map[string]*bookingRun{}, outages: map[string]*outage{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /book", s.book)
	mux.HandleFunc("GET /get_booking", s.getBooking)
	s.Server = httptest.NewServer(mux)
	return s
}

// cell sets the fault of the runs on queue.
func (s *bookings) cell(queue string, f fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[queue] = f
	s.began[queue] = time.Now()
	if f.kind == faultOutage {
		s.outagesMu.Lock()
		s.outages[queue] = &outage{fault: f}
		s.outagesMu.Unlock()
	}
}

// run is the state of a workflow id, made on its first request.
func (s *bookings) run(wf string) *bookingRun {
	r := s.runs[wf]
	if r == nil {
		r = &bookingRun{byKey: map[string]booking{}, byConf: map[string]booking{}}
		s.runs[wf] = r
	}
	return r
}

func (s *bookings) book(w http.ResponseWriter, req *http.Request) {
	var args struct{ Room string }
	if err := json.NewDecoder(req.Body).Decode(&args); err != nil || args.Room == "" {
		reply(w, http.StatusBadRequest, map[string]any{"error": "room is required"})
		return
	}
	wf, key := req.Header.Get("Unstuck-Workflow-Id"), req.Header.Get("Idempotency-Key")
	if o, down := s.outageAt(queueOf(wf)); down {
		reply(w, http.StatusServiceUnavailable, map[string]any{"error": "booking service unavailable"})
		w.(http.Flusher).Flush() // counted once the answer has left
		s.outagesMu.Lock()
		o.failed++
		o.streak++
		s.outagesMu.Unlock()
		return
	} else if o != nil {
		defer s.outageBooked(o)
		s.outageBooking(o)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults[queueOf(wf)]
	r := s.run(wf)
	r.requests++
	r.writes++
	failing := f.kind != faultReadDown && f.kind != faultOutage && (f.permanent || r.writes <= 2)
	s.seq++
	switch {
	case failing && f.kind == faultClear:
		reply(w, http.StatusServiceUnavailable, map[string]any{"error": "booking service unavailable"})
		return
	case failing && f.kind == faultNoEffect:
		reply(w, http.StatusOK, map[string]any{"status": "booked", "room": args.Room, "confirmation": fmt.Sprintf("C-%d", s.seq), "nights": 1})
		return
	}
	b, done := r.byKey[key]
	if done {
		r.keyed++
	} else {
		b = booking{Room: args.Room, Confirmation: fmt.Sprintf("C-%d", s.seq)}
		r.byKey[key], r.byConf[b.Confirmation] = b, b
	}
	if failing { // faultBody: booked, but the answer is someone else's
		reply(w, http.StatusOK, map[string]any{"status": "booked", "room": args.Room + "B", "confirmation": fmt.Sprintf("C-%d", s.seq+1_000_000), "nights": 1})
		return
	}
	reply(w, http.StatusOK, map[string]any{"status": "booked", "room": b.Room, "confirmation": b.Confirmation, "nights": 1})
}

// outageAt is the outage of queue's cell (nil for another cell) and
// whether the service is down for a write that arrives now, counted. It is
// down from the cell's first write until downFor after it (and again, as
// its fault says, when it flaps).
func (s *bookings) outageAt(queue string) (o *outage, down bool) {
	s.outagesMu.Lock()
	defer s.outagesMu.Unlock()
	o = s.outages[queue]
	if o == nil {
		return nil, false
	}
	now := time.Now()
	if o.firstAt.IsZero() {
		o.firstAt = now
		o.upAt = now.Add(o.span())
	}
	if !o.downAt(now) {
		return o, false
	}
	o.down++
	if o.streak < o.gate() {
		o.early++
	}
	return o, true
}

// outageBooking counts a write the service books, in flight while it
// does (outageLatency).
func (s *bookings) outageBooking(o *outage) {
	s.outagesMu.Lock()
	o.inFlight++
	o.peak = max(o.peak, o.inFlight)
	s.outagesMu.Unlock()
	time.Sleep(outageLatency)
}

// outageBooked notes, once its answer has left, that the service booked
// a write of an outage cell: its 503s in a row start again.
func (s *bookings) outageBooked(o *outage) {
	s.outagesMu.Lock()
	defer s.outagesMu.Unlock()
	o.inFlight--
	o.streak, o.answered = 0, true
}

// getBooking is the read-back: the run's booking of a confirmation, or
// state "none" when the run has none by it.
func (s *bookings) getBooking(w http.ResponseWriter, req *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	wf := req.Header.Get("Unstuck-Workflow-Id")
	r := s.run(wf)
	r.requests++
	queue := queueOf(wf)
	if f := s.faults[queue]; f.kind == faultReadDown && (f.permanent || time.Since(s.began[queue]) < readDownFor) {
		reply(w, http.StatusServiceUnavailable, map[string]any{"error": "bookings cannot be read now"})
		return
	}
	if b, ok := r.byConf[req.URL.Query().Get("confirmation")]; ok {
		reply(w, http.StatusOK, map[string]any{"state": "confirmed", "room": b.Room, "confirmation": b.Confirmation})
		return
	}
	reply(w, http.StatusOK, map[string]any{"state": "none"})
}

// seen is what the server saw of run wf: its requests, the bookings it
// made, the write requests a key answered, and the run's confirmations.
func (s *bookings) seen(wf string) (requests, performed, keyed int, confs map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.run(wf)
	confs = map[string]bool{}
	for c := range r.byConf {
		confs[c] = true
	}
	return r.requests, len(r.byKey), r.keyed, confs
}

// queueOf is the task queue of a run whose id is queue-i.
func queueOf(wf string) string {
	if i := strings.LastIndex(wf, "-"); i >= 0 {
		return wf[:i]
	}
	return wf
}

func reply(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
