package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Streams are counted per run and in all: one over a bound is refused
// with the right status; a stream that ends frees its place (once, however
// often it is ended); stopping ends them all and refuses new ones.
func TestStreamsBoundsAndStop(t *testing.T) {
	s := newStreams(3, 2)
	ctx := context.Background()
	open := func(run string) (context.Context, func()) {
		t.Helper()
		sctx, done, no := s.openFor(ctx, run)
		require.Nil(t, no, "%s", run)
		return sctx, done
	}
	refused := func(run string, status int) {
		t.Helper()
		_, _, no := s.openFor(ctx, run)
		require.NotNil(t, no, "%s", run)
		require.Equal(t, status, no.status, no.why)
		w := httptest.NewRecorder()
		no.write(w)
		require.Equal(t, status, w.Code)
		require.Equal(t, "5", w.Header().Get("Retry-After"))
	}
	a1, doneA1 := open("a")
	open("a")
	refused("a", http.StatusTooManyRequests)
	b1, _ := open("b")
	refused("c", http.StatusServiceUnavailable)
	doneA1()
	doneA1()
	require.Error(t, a1.Err(), "a stream ended is cancelled")
	open("c")
	refused("c", http.StatusServiceUnavailable)

	s.stop()
	select {
	case <-b1.Done(): // stopping ends every stream
	case <-time.After(10 * time.Second):
		t.Fatal("a stream open when the console stopped was not ended")
	}
	refused("d", http.StatusServiceUnavailable)
}

// Bounds not given are the defaults.
func TestStreamsDefaults(t *testing.T) {
	s := newStreams(0, 0)
	require.Equal(t, DefaultMaxStreams, s.max)
	require.Equal(t, DefaultMaxStreamsPerRun, s.perRun)
}
