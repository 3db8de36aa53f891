package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
)

// ErrServerExited: the server process waited for exited before it
// answered.
var ErrServerExited = errors.New("the Temporal server exited while starting")

// DialWhenReady connects to the Temporal server at opts.HostPort once it
// answers a health check: a server just started takes seconds. It gives
// up when exited closes (the server's process is gone: ErrServerExited)
// or ctx ends (the error names the last refusal).
func DialWhenReady(ctx context.Context, opts client.Options, exited <-chan struct{}) (client.Client, error) {
	for {
		c, err := dialHealthy(ctx, opts)
		if err == nil {
			return c, nil
		}
		select {
		case <-exited:
			return nil, ErrServerExited
		case <-ctx.Done():
			return nil, fmt.Errorf("the Temporal server at %s did not answer: %w", opts.HostPort, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// dialHealthy is one attempt, bounded so a server that accepts the
// connection but does not answer yet is asked again.
func dialHealthy(ctx context.Context, opts client.Options) (client.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}
