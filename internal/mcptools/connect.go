package mcptools

import (
	"context"
	"errors"
	"fmt"
)

// connect starts (stdio) or reaches (HTTP) the server and completes the MCP handshake,
// within the server's timeout.
func (s *server) connect(ctx context.Context) (*session, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	switch {
	case s.cfg.Command != "" && s.cfg.URL != "":
		return nil, fmt.Errorf("mcp server %q: has both a command and a url; it needs exactly one", s.cfg.Name)
	case s.cfg.Command != "":
		stderr := &stderrTail{}
		cs, err := s.client.Connect(ctx, stdioTransport(s.cfg, s.getenv, stderr), nil)
		if err != nil {
			return nil, s.unavailable(fmt.Errorf("cannot start %q: %w%s", s.cfg.Command, timeoutSaid(ctx, s.cfg, err), quoteStderr(stderr)))
		}
		return newSession(cs, stderr), nil
	case s.cfg.URL != "":
		t, err := httpTransport(s.cfg, s.getenv)
		if err != nil {
			// A missing variable does not fix itself: not an UnavailableError.
			return nil, fmt.Errorf("mcp server %q: %w", s.cfg.Name, err)
		}
		cs, err := s.client.Connect(ctx, t, nil)
		if err != nil {
			return nil, s.unavailable(fmt.Errorf("cannot connect to %s: %w", s.cfg.URL, timeoutSaid(ctx, s.cfg, err)))
		}
		return newSession(cs, nil), nil
	default:
		return nil, fmt.Errorf("mcp server %q: has neither a command nor a url", s.cfg.Name)
	}
}

// timeoutSaid adds, when ctx's deadline passed, which timeout it was, since "context deadline
// exceeded" alone does not say which setting to raise.
func timeoutSaid(ctx context.Context, cfg ServerConfig, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within the timeout of %s: %w", cfg.timeout(), err)
	}
	return err
}

func quoteStderr(t *stderrTail) string {
	if t == nil {
		return ""
	}
	if s := t.String(); s != "" {
		return "; its stderr ends: " + s
	}
	return ""
}
