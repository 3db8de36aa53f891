package console

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The bounds on event streams (GET /runs/{id}/events) a console serves at
// once, unless its Options say otherwise. Each stream reads its run four
// times a second, so the bounds bound what a console asks of Temporal.
const (
	DefaultMaxStreams       = 32
	DefaultMaxStreamsPerRun = 4
)

// streamRetryAfter is what a refused stream is told to wait before it
// tries again (Retry-After; the chat page waits as long).
const streamRetryAfter = 5 * time.Second

// streams counts the event streams open, per run and in all, and ends
// them all when the console stops.
type streams struct {
	max, perRun int
	stopping    context.Context
	stop        context.CancelFunc

	mu    sync.Mutex
	open  int
	byRun map[string]int
}

func newStreams(max, perRun int) *streams {
	if max <= 0 {
		max = DefaultMaxStreams
	}
	if perRun <= 0 {
		perRun = DefaultMaxStreamsPerRun
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &streams{max: max, perRun: perRun, stopping: ctx, stop: cancel, byRun: map[string]int{}}
}

// refusal is why a stream was not opened, as an HTTP answer.
type refusal struct {
	status int
	why    string
}

// openFor counts a new stream of run, or says why it may not open. The
// stream's context is ctx, ended too when the console stops; done ends
// the stream's count.
func (s *streams) openFor(ctx context.Context, run string) (sctx context.Context, done func(), no *refusal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stopping.Err() != nil:
		return nil, nil, &refusal{http.StatusServiceUnavailable, "the console is stopping"}
	case s.byRun[run] >= s.perRun:
		return nil, nil, &refusal{http.StatusTooManyRequests, fmt.Sprintf(
			"run %s already has %d event streams open, the most this console serves one run (--max-streams-per-run): close a page of it, or try again later", run, s.perRun)}
	case s.open >= s.max:
		return nil, nil, &refusal{http.StatusServiceUnavailable, fmt.Sprintf(
			"this console already serves %d event streams, the most it serves at once (--max-streams): close a page, or try again later", s.max)}
	}
	s.open++
	s.byRun[run]++
	sctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(s.stopping, cancel)
	var once sync.Once
	return sctx, func() {
		once.Do(func() {
			unhook()
			cancel()
			s.mu.Lock()
			defer s.mu.Unlock()
			s.open--
			if s.byRun[run]--; s.byRun[run] == 0 {
				delete(s.byRun, run)
			}
		})
	}, nil
}

// write answers a refused stream: its status, a Retry-After and why.
func (no *refusal) write(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(int(streamRetryAfter/time.Second)))
	http.Error(w, no.why, no.status)
}
