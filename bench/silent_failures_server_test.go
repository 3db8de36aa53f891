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
)

// fault is how the booking tool fails a run: how its failing tries look
// (kind) and whether they stop after two tries (transient) or never do;
// or, for an outage, how long the service is down for every run.
type fault struct {
	kind      string // faultClear, faultBody, faultNoEffect, faultReadDown or faultOutage
	permanent bool
	downFor   time.Duration // faultOutage: from the cell's first write
}

const (
	faultClear    = "clear"            // 503, nothing booked
	faultBody     = "silent-body"      // 200, booked, but the body names another room and a confirmation that is not there
	faultNoEffect = "silent-no-effect" // 200, a body like success's, nothing booked
	faultReadDown = "read-back-down"   // writes book; get_booking answers 503 (readDownFor, or for good)
	faultOutage   = "outage"           // every write of the cell 503, nothing booked, from its first until downFor after it; then no fault
)

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

// outage is an outage cell as the service saw it: when it comes back
// (zero before the cell's first write), the writes that arrived while it
// was down, of them those that arrived before it had answered
// config.DefaultFailures of them (a breaker cannot have stopped those),
// and the 503s it answered.
type outage struct {
	downFor             time.Duration
	upAt                time.Time
	down, early, failed int
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
		s.outages[queue] = &outage{downFor: f.downFor}
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
	if o := s.outageDown(queueOf(wf)); o != nil {
		reply(w, http.StatusServiceUnavailable, map[string]any{"error": "booking service unavailable"})
		w.(http.Flusher).Flush() // counted once the answer has left
		s.outagesMu.Lock()
		o.failed++
		s.outagesMu.Unlock()
		return
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

// outageDown is the outage of queue's cell if the service is down for a
// write that arrives now, counted; nil otherwise. It is down from the
// cell's first write until downFor after it.
func (s *bookings) outageDown(queue string) *outage {
	s.outagesMu.Lock()
	defer s.outagesMu.Unlock()
	o := s.outages[queue]
	if o == nil {
		return nil
	}
	now := time.Now()
	if o.upAt.IsZero() {
		o.upAt = now.Add(o.downFor)
	}
	if !now.Before(o.upAt) {
		return nil
	}
	o.down++
	if o.failed < config.DefaultFailures {
		o.early++
	}
	return o
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
