package console

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// DefaultListen is where the console listens unless told otherwise:
// loopback only.
const DefaultListen = "127.0.0.1:8234"

// CheckListen refuses to serve a non-loopback address without tokens
// (the console's, or each person's): the console steers runs, and anyone
// who reaches it could. A console that trusts a reverse proxy's identity
// header serves loopback only: anyone who reached it otherwise could set
// the header. Behind a reverse proxy that authenticates, keep the console
// on loopback.
func CheckListen(addr string, opts Options) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %v (want host:port, like %s)", addr, err, DefaultListen)
	}
	if isLoopback(host) {
		return nil
	}
	shown := host
	if shown == "" {
		shown = "every interface"
	}
	if opts.IdentityHeader != "" {
		return fmt.Errorf("--listen %s: refusing to serve %s with --identity-header %s: anyone who reaches the console could set the header and act as anyone. "+
			"Keep the console on loopback (%s) behind the reverse proxy that sets it", addr, shown, opts.IdentityHeader, DefaultListen)
	}
	if opts.Token != "" || len(opts.People) > 0 {
		return nil
	}
	return fmt.Errorf("--listen %s: refusing to serve %s without a token: anyone who reaches the console can steer runs. "+
		"Set --token (or UNSTUCK_CONSOLE_TOKEN) or --people, or keep the console on loopback (%s) behind a reverse proxy that authenticates",
		addr, shown, DefaultListen)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Listen checks addr against the console's options (CheckListen) and
// listens on it.
func Listen(addr string, opts Options) (net.Listener, error) {
	if err := CheckListen(addr, opts); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	return ln, nil
}

// Serve listens on addr and serves h until ctx is done, then shuts down,
// letting requests in flight finish for a few seconds. A handler from New
// brings its tokens for the loopback check; any other handler may only
// listen on loopback.
func Serve(ctx context.Context, addr string, h http.Handler) error {
	var opts Options
	if c, ok := h.(*Console); ok {
		opts = c.opts
	}
	ln, err := Listen(addr, opts)
	if err != nil {
		return err
	}
	return ServeListener(ctx, ln, h)
}

// ShutdownGrace is how long requests in flight may finish after ctx ends.
// Event streams do not wait for it: they end as the shutdown starts.
const ShutdownGrace = 5 * time.Second

// ServeListener serves h on ln until ctx is done.
func ServeListener(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if c, ok := h.(*Console); ok {
		srv.RegisterOnShutdown(c.stopStreams)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-done; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
