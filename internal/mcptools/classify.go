package mcptools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's own JSON-RPC codes for a connection going away and for a request its transport
// would not deliver; they come back as *jsonrpc.Error but are not the server's answer.
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005
)

// exitWait is how long an error about a broken stdio session waits for the program's exit
// status, to quote it.
const exitWait = time.Second

// classify turns a failed request into UnavailableError or ProtocolError. what says what was
// being done ("calling tool \"x\""); tool is "" for listing. A nil sess means there was no
// session to send on, and err already says why.
func (s *server) classify(ctx context.Context, sess *session, tool, what string, err error) error {
	var wire *jsonrpc.Error
	switch {
	case sess == nil:
		return err
	case ctx.Err() != nil:
		return s.unavailable(fmt.Errorf("%s: %w", what, timeoutSaid(ctx, s.cfg, err)))
	case isTransportFailure(err):
		return s.unavailable(fmt.Errorf("%s: connection lost: %w%s", what, err, endedBecause(sess)))
	case errors.As(err, &wire) && !isTransportCode(wire.Code):
		return &ProtocolError{Server: s.cfg.Name, Tool: tool, Code: wire.Code, Message: wire.Message}
	default:
		return s.unavailable(fmt.Errorf("%s: %w", what, err))
	}
}

// isTransportFailure reports whether err means the session is broken: the program exited or
// the connection failed. The SDK does not always wrap the cause, hence the text fallback.
func isTransportFailure(err error) bool {
	var wire *jsonrpc.Error
	var netErr net.Error
	switch {
	case errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, mcp.ErrSessionMissing),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.ErrClosedPipe),
		errors.Is(err, os.ErrClosed), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.As(err, &netErr):
		return true
	case errors.As(err, &wire):
		return wire.Code == codeClientClosing || wire.Code == codeServerClosing
	}
	msg := err.Error()
	for _, s := range []string{"EOF", "closed", "broken pipe", "connection refused", "connection reset"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// neverSent reports whether err says the request was refused before it was written: the
// SDK answers ErrConnectionClosed for a call on a session already known to be closed, and
// ErrSessionMissing (HTTP 404) when the server no longer knows the session.
func neverSent(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing)
}

func isTransportCode(code int64) bool {
	return code == codeClientClosing || code == codeServerClosing || code == codeRejected
}

// endedBecause says, for a stdio session, how the program ended and what it last wrote to
// stderr; the broken pipe alone does not say why.
func endedBecause(sess *session) string {
	if sess == nil || sess.stderr == nil {
		return ""
	}
	var said string
	select {
	case <-sess.done:
		if sess.closeErr != nil {
			said = fmt.Sprintf(" (the program ended: %v)", sess.closeErr)
		}
	case <-time.After(exitWait):
	}
	return said + quoteStderr(sess.stderr)
}
