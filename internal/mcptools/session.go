package mcptools

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session is one live connection to a server, shared by concurrent calls.
type session struct {
	cs     *mcp.ClientSession
	stderr *stderrTail // the program's stderr; nil for HTTP

	closeOnce sync.Once
	done      chan struct{} // closed once the session has been closed
	closeErr  error         // what closing returned: for stdio, the program's exit status
}

func newSession(cs *mcp.ClientSession, stderr *stderrTail) *session {
	return &session{cs: cs, stderr: stderr, done: make(chan struct{})}
}

// close closes the session once (for stdio: closes the program's stdin and waits for it to
// exit, signalling it if it does not) and returns what that first close returned.
func (s *session) close() error {
	s.closeOnce.Do(func() {
		s.closeErr = s.cs.Close()
		close(s.done)
	})
	return s.closeErr
}

func (s *session) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}
