package scriptedmodel

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Header is set to "true" on every response, so a log or a proxy can tell the
// test double from a real provider.
const Header = "X-Unstuck-Scripted"

// Server is a running scripted model server.
type Server struct {
	scripts  map[string]Script
	fallback string
	logf     func(format string, args ...any)
	ln       net.Listener
	http     *http.Server

	mu       sync.Mutex
	bodies   [][]byte // every well-formed request body, in arrival order
	failures []Turn   // queued by FailNext, answered before any script
	streams  int      // streamed answers being written now
	window   int      // WithContextWindow's tokens, 0: none
	prompts  []int    // each request's prompt tokens
	// firstContent: when each streamed answer's first content was written,
	// by request number.
	firstContent map[int]time.Time
}

// wroteContent notes that request n's first content was just written.
func (s *Server) wroteContent(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.firstContent == nil {
		s.firstContent = map[int]time.Time{}
	}
	s.firstContent[n] = time.Now()
}

// FirstContentAt is when the streamed answer to request n (1 the first)
// wrote its first content, flushed to the client; false before then.
func (s *Server) FirstContentAt(n int) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.firstContent[n]
	return at, ok
}

// OpenStreams is how many streamed answers the server is writing now: a
// test can tell whether a tool call arrived while its reply still streamed.
func (s *Server) OpenStreams() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams
}

// Option configures Start.
type Option func(*Server)

// WithLogf sends the server's log lines to logf (e.g. t.Logf) instead of the
// standard logger.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(s *Server) { s.logf = logf }
}

// Start listens on addr ("127.0.0.1:0" for a free loopback port; "" means
// that) and serves scripts, chosen by the request's model field. A model with
// no script of its name gets the fallback script when fallback is non-empty,
// else a 404 model_not_found error, as a real provider answers an unknown
// model.
func Start(addr string, scripts map[string]Script, fallback string, opts ...Option) (*Server, error) {
	if fallback != "" && scripts[fallback] == nil {
		return nil, fmt.Errorf("scriptedmodel: fallback script %q is not one of %s", fallback, names(scripts))
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	s := &Server{scripts: map[string]Script{}, fallback: fallback, logf: log.Printf}
	for name, sc := range scripts { // copied so later edits of the map cannot race with requests
		if sc == nil {
			return nil, fmt.Errorf("scriptedmodel: script %q is nil", name)
		}
		s.scripts[name] = sc
	}
	for _, o := range opts {
		o(s)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("scriptedmodel: listen on %s: %w", addr, err)
	}
	s.ln = ln
	s.http = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logf("scripted model server stopped: %v", err)
		}
	}()
	fb := ""
	if fallback != "" {
		fb = " (fallback: " + fallback + ")"
	}
	s.logf("scripted model server (a test double, not a real model) listening on %s, scripts: %s%s",
		s.URL(), strings.Join(names(s.scripts), ", "), fb)
	return s, nil
}

// URL is the base URL, ending in /v1, to use as go-openai's BaseURL or as
// OPENAI_BASE_URL.
func (s *Server) URL() string {
	return "http://" + s.ln.Addr().String() + "/v1"
}

// Close stops the server at once, cutting requests still in flight.
func (s *Server) Close() error {
	return s.http.Close()
}

// Requests are copies of every well-formed chat-completions request received,
// in arrival order, including those answered with an error. They are decoded
// afresh on each call, so callers may modify them freely.
func (s *Server) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	bodies := slices.Clone(s.bodies)
	s.mu.Unlock()
	out := make([]openai.ChatCompletionRequest, len(bodies))
	for i, b := range bodies {
		_ = json.Unmarshal(b, &out[i]) // decoded once already when received
	}
	return out
}

// RequestCount is len(Requests()) without the copying.
func (s *Server) RequestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// FailNext makes the next n chat-completions requests, whatever their model,
// answer status, to script an outage. For 429 and 503 a Retry-After of one
// second is sent, as real providers do. Calls queue up: FailNext(1, 429)
// then FailNext(1, 503) fails one request with each.
func (s *Server) FailNext(n int, status int) {
	t := Turn{Status: status}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		t.RetryAfter = time.Second
	}
	s.FailNextTurn(n, t)
}

// FailNextTurn makes the next n chat-completions requests answer t instead
// of their script, for outages with a chosen message, Retry-After or delay.
func (s *Server) FailNextTurn(n int, t Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures = append(s.failures, t)
	}
}

// record keeps a request body and returns its 1-based number, with the queued
// failure it must answer, if any.
func (s *Server) record(body []byte) (int, *Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies = append(s.bodies, body)
	if len(s.failures) == 0 {
		return len(s.bodies), nil
	}
	t := s.failures[0]
	s.failures = s.failures[1:]
	return len(s.bodies), &t
}

// script is the script serving model, or nil.
func (s *Server) script(model string) Script {
	if sc := s.scripts[model]; sc != nil {
		return sc
	}
	return s.scripts[s.fallback] // nil when there is no fallback
}

// names are the sorted script names, for messages and /v1/models.
func names(scripts map[string]Script) []string {
	out := make([]string, 0, len(scripts))
	for n := range scripts {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
