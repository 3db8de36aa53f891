package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// ToolServer is the self-contained load's HTTP tool, on loopback: it
// answers each call after a fixed latency with a small JSON result that
// echoes the call's arguments, and records each call's Idempotency-Key,
// so a load can check that every call carried exactly one and that no
// call was sent twice.
type ToolServer struct {
	latency time.Duration
	ln      net.Listener
	http    *http.Server

	mu     sync.Mutex
	counts KeyCounts
	seen   map[string]bool
}

// KeyCounts is what the tool server saw of the Idempotency-Keys.
type KeyCounts struct {
	// Calls is every request received.
	Calls int `json:"calls"`
	// Keys is how many distinct keys those calls carried.
	Keys int `json:"keys"`
	// WithoutKey and WithSeveralKeys are calls with no Idempotency-Key
	// header, or more than one.
	WithoutKey      int `json:"without_key"`
	WithSeveralKeys int `json:"with_several_keys"`
	// Repeated are calls whose key an earlier call carried already: a
	// retried attempt (which the key lets a tool recognise).
	Repeated int `json:"repeated"`
}

// StartToolServer listens on a free loopback port.
func StartToolServer(latency time.Duration) (*ToolServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("load: tool server: %w", err)
	}
	t := &ToolServer{latency: latency, ln: ln, seen: map[string]bool{}}
	t.http = &http.Server{Handler: http.HandlerFunc(t.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := t.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err) // Serve fails only on a broken listener: nothing left to test
		}
	}()
	return t, nil
}

// URL is the tool's address.
func (t *ToolServer) URL() string { return "http://" + t.ln.Addr().String() + "/work" }

// Keys is a copy of what was recorded so far.
func (t *ToolServer) Keys() KeyCounts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counts
}

// Close stops the server, cutting calls in flight.
func (t *ToolServer) Close() error { return t.http.Close() }

func (t *ToolServer) serve(w http.ResponseWriter, r *http.Request) {
	t.record(r.Header.Values("Idempotency-Key"))
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if !json.Valid(body) {
		body = []byte("null")
	}
	if t.latency > 0 {
		select {
		case <-time.After(t.latency):
		case <-r.Context().Done():
			return // the activity gave up; nobody reads the answer
		}
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"ok": true, "args": %s}`, body)
}

func (t *ToolServer) record(keys []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counts.Calls++
	switch len(keys) {
	case 0:
		t.counts.WithoutKey++
		return
	case 1:
	default:
		t.counts.WithSeveralKeys++
	}
	for _, k := range keys {
		if t.seen[k] {
			t.counts.Repeated++
			continue
		}
		t.seen[k] = true
		t.counts.Keys++
	}
}
