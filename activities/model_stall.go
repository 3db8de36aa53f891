package activities

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
)

// ModelStalledError is the application error type of a streamed reply the
// worker cut because its provider sent no byte for too long
// (model.stall): retried like ModelUnavailableError, and counted as the
// model being unavailable by the worker's breaker and the run's fallback.
const ModelStalledError = "ModelStalled"

// StalledClass is a stall's class, the error.type of its chat span.
const StalledClass = "stalled"

// stallWatch cuts a streamed request whose provider sends no byte of the
// body for bounds.FirstByte after the request was sent, or for
// bounds.Idle after the last byte. It is what tells a provider that holds
// the connection open without answering from one that is slow: the
// worker's heartbeats only say that the worker is alive.
type stallWatch struct {
	bounds  config.Stall
	started time.Time
	// last is when the last byte came, as time since started (monotonic);
	// began closes at the first.
	last      atomic.Int64
	began     chan struct{}
	beganOnce sync.Once
	done      chan struct{}
	doneOnce  sync.Once
	cut       context.CancelCauseFunc
}

// stallCut is why a watch cut its request.
type stallCut struct {
	deadline string // first_byte or idle
	after    time.Duration
}

func (c *stallCut) Error() string {
	if c.deadline == "first_byte" {
		return fmt.Sprintf("no byte of the reply %s after the request was sent (stall.first_byte)", c.after)
	}
	return fmt.Sprintf("no byte for %s (stall.idle)", c.after)
}

type stallWatchKey struct{}

// watchStall starts a watch over the request sent with the context it
// returns; stop ends it.
func watchStall(ctx context.Context, bounds config.Stall) (context.Context, *stallWatch) {
	w := &stallWatch{bounds: bounds, started: time.Now(), began: make(chan struct{}), done: make(chan struct{})}
	ctx, w.cut = context.WithCancelCause(ctx)
	go w.run()
	return context.WithValue(ctx, stallWatchKey{}, w), w
}

// stop ends the watch and releases its context; a cut it made stays the
// context's cause.
func (w *stallWatch) stop() {
	w.doneOnce.Do(func() {
		close(w.done)
		w.cut(nil)
	})
}

// run sleeps until the deadline in force, and cuts the request if no byte
// moved it meanwhile. The first byte can bring the deadline nearer (an
// idle shorter than what was left of first_byte); later bytes only move
// it on.
func (w *stallWatch) run() {
	t := time.NewTimer(w.bounds.FirstByte.D())
	defer t.Stop()
	began := w.began
	for {
		select {
		case <-w.done:
			return
		case <-began:
			began = nil
		case <-t.C:
		}
		cut, left := w.check(time.Now())
		if cut != nil {
			w.cut(cut)
			return
		}
		t.Reset(left)
	}
}

// check says whether the deadline in force has passed at now, else how
// long is left of it.
func (w *stallWatch) check(now time.Time) (*stallCut, time.Duration) {
	since := now.Sub(w.started)
	select {
	case <-w.began:
		if left := time.Duration(w.last.Load()) + w.bounds.Idle.D() - since; left > 0 {
			return nil, left
		}
		return &stallCut{deadline: "idle", after: w.bounds.Idle.D()}, 0
	default:
		if left := w.bounds.FirstByte.D() - since; left > 0 {
			return nil, left
		}
		return &stallCut{deadline: "first_byte", after: w.bounds.FirstByte.D()}, 0
	}
}

// sawBytes notes that bytes of the body arrived.
func (w *stallWatch) sawBytes() {
	w.last.Store(int64(time.Since(w.started)))
	w.beganOnce.Do(func() { close(w.began) })
}

// stalledBy is why a watch cut the request sent with ctx (the context
// watchStall gave), or nil if none did.
func stalledBy(ctx context.Context) *stallCut {
	var cut *stallCut
	if errors.As(context.Cause(ctx), &cut) {
		return cut
	}
	return nil
}

// stallError is a streamed reply cut for silence, and, cut at idle, how
// far it got.
func stallError(model config.Model, cut *stallCut, progress string) error {
	msg := fmt.Sprintf("model %q at %s: stalled: %v", model.Name, safeURL(model.BaseURL), cut)
	if cut.deadline == "idle" && progress != "" {
		msg += ", after " + progress
	}
	return temporal.NewApplicationError(msg, ModelStalledError)
}

// watchedBodies is the model client's transport: the body of a response
// to a request under a stallWatch tells the watch of each byte read.
type watchedBodies struct{ base http.RoundTripper }

func (t watchedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if w, ok := r.Context().Value(stallWatchKey{}).(*stallWatch); ok && resp != nil {
		resp.Body = watchedBody{ReadCloser: resp.Body, w: w}
	}
	return resp, err
}

type watchedBody struct {
	io.ReadCloser
	w *stallWatch
}

func (b watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.sawBytes()
	}
	return n, err
}
