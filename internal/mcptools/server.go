package mcptools

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server holds the session to one configured server and makes a new one when it breaks.
type server struct {
	cfg    ServerConfig
	getenv func(string) (string, bool)
	client *mcp.Client

	// connecting admits one connect at a time, so concurrent first calls share one session
	// (and one program). A channel rather than a mutex, so waiting for it respects ctx.
	connecting chan struct{}

	mu     sync.Mutex // guards cur and closed; never held across I/O
	cur    *session
	closed bool
}

var errPoolClosed = errors.New("the MCP pool is closed")

// current returns the live session, or nil.
func (s *server) current() (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errPoolClosed
	}
	if s.cur != nil && s.cur.ended() {
		s.cur = nil
	}
	return s.cur, nil
}

// session returns the live session, connecting when there is none. reused reports whether
// the session existed before this call asked for it (it may have died since).
func (s *server) session(ctx context.Context) (sess *session, reused bool, err error) {
	if sess, err := s.current(); sess != nil || err != nil {
		return sess, true, err
	}
	select {
	case s.connecting <- struct{}{}:
		defer func() { <-s.connecting }()
	case <-ctx.Done():
		return nil, false, s.unavailable(fmt.Errorf("waiting for another call to connect: %w", ctx.Err()))
	}
	// Another call may have connected while this one waited.
	if sess, err := s.current(); sess != nil || err != nil {
		return sess, true, err
	}
	sess, err = s.connect(ctx)
	if err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.cur = sess
	}
	s.mu.Unlock()
	if closed {
		_ = sess.close()
		return nil, false, errPoolClosed
	}
	go s.watch(sess)
	return sess, false, nil
}

// watch drops the session when it ends on the server's side (the program exited, the HTTP
// connection failed), so the next call starts a new one.
func (s *server) watch(sess *session) {
	_ = sess.cs.Wait()
	_ = sess.close()
	s.forget(sess)
}

// forget drops sess if it is still the current session.
func (s *server) forget(sess *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == sess {
		s.cur = nil
	}
}

// do runs f on the session. A reused session that turns out to have died before f's request
// was sent is replaced, and f run once more: nothing reached the server, so this is not a
// retry of the call. Any other failure is returned, with the session it happened on.
func (s *server) do(ctx context.Context, f func(*mcp.ClientSession) error) (*session, error) {
	for attempt := 1; ; attempt++ {
		sess, reused, err := s.session(ctx)
		if err != nil {
			return nil, err
		}
		err = f(sess.cs)
		if err == nil {
			return sess, nil
		}
		if ctx.Err() == nil && isTransportFailure(err) {
			s.forget(sess)
			go sess.close()
			if reused && attempt == 1 && neverSent(err) {
				continue
			}
		}
		return sess, err
	}
}

// close closes the current session, if any, and refuses new ones.
func (s *server) close() error {
	s.mu.Lock()
	sess := s.cur
	s.cur, s.closed = nil, true
	s.mu.Unlock()
	if sess == nil {
		return nil
	}
	if err := sess.close(); err != nil {
		return fmt.Errorf("mcp server %q: closing: %w", s.cfg.Name, err)
	}
	return nil
}

func (s *server) unavailable(err error) error {
	return &UnavailableError{Server: s.cfg.Name, Err: err}
}
