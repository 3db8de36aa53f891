package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/internal/telemetry"
	"github.com/unstuck-dev/unstuck/signals"
)

// dialTimeout bounds connecting to Temporal, so a wrong address fails
// fast with advice instead of hanging.
const dialTimeout = 10 * time.Second

// queryTimeout bounds a query: without a worker polling the task queue a
// query never gets an answer.
const queryTimeout = 30 * time.Second

// dialFunc connects to Temporal; tests replace it with a fake client.
type dialFunc func(ctx context.Context, opts client.Options) (client.Client, error)

// cli is the state the commands share: the connection flags and how to
// dial. Commands validate their own flags first and dial last, so a typo
// never needs a server.
type cli struct {
	address   string
	namespace string
	dial      dialFunc
}

// client dials Temporal with the --address and --namespace flags.
func (c *cli) client(ctx context.Context) (client.Client, error) {
	return c.clientWithin(ctx, dialTimeout)
}

// clientWithin dials as client does, giving up after timeout.
func (c *cli) clientWithin(ctx context.Context, timeout time.Duration) (client.Client, error) {
	return c.clientLogging(ctx, timeout, app.QuietLogger())
}

// clientLogging dials as clientWithin does, the SDK logging to logger.
func (c *cli) clientLogging(ctx context.Context, timeout time.Duration, logger log.Logger) (client.Client, error) {
	opts := app.ClientOptions()
	opts.HostPort = c.address
	opts.Namespace = c.namespace
	opts.Logger = logger
	opts, err := app.WithSecurity(opts, nil)
	if err != nil {
		return nil, err
	}
	// A run started here carries the trace context into the workflow.
	if opts, err = telemetry.WithTracing(opts); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tc, err := c.dial(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot reach Temporal at %s (namespace %q): %w\n"+
			"start a local server with `make demo` or `temporal server start-dev`, "+
			"or point --address / TEMPORAL_ADDRESS at yours", c.address, c.namespace, err)
	}
	return tc, nil
}

// dialTemporal is the real dialFunc.
func dialTemporal(ctx context.Context, opts client.Options) (client.Client, error) {
	return client.DialContext(ctx, opts)
}

// query asks a run for one of its queries and decodes the answer into out.
func (c *cli) query(ctx context.Context, workflowID, runID, name string, out any) error {
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	return c.queryWith(ctx, tc, workflowID, runID, name, out)
}

// queryWith asks a run for one of its queries, with args, on a client
// already dialed, and decodes the answer into out.
func (c *cli) queryWith(ctx context.Context, tc client.Client, workflowID, runID, name string, out any, args ...any) error {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	v, err := tc.QueryWorkflow(qctx, workflowID, runID, name, args...)
	if err != nil {
		timedOut := qctx.Err() != nil && ctx.Err() == nil
		return c.explainQueryError(workflowID, name, err, timedOut)
	}
	if err := v.Get(out); err != nil {
		return fmt.Errorf("decode the %s query answer of %s: %w", name, workflowID, err)
	}
	return nil
}

// explainQueryError turns the usual query failures into advice.
func (c *cli) explainQueryError(workflowID, name string, err error, timedOut bool) error {
	var notFound *serviceerror.NotFound
	var deadline *serviceerror.DeadlineExceeded
	why, failedAtStart := signals.FailedToStart(err)
	switch {
	case errors.As(err, &notFound):
		return fmt.Errorf("workflow %s not found in namespace %q (list runs with `temporal workflow list --namespace %s`)",
			workflowID, c.namespace, c.namespace)
	case failedAtStart:
		return fmt.Errorf("run %s failed at its start: %s", workflowID, why)
	case timedOut, errors.As(err, &deadline):
		return fmt.Errorf("query %s of %s got no answer within %s: is a worker polling its task queue? (bin/unstuck-worker --config agents.yaml)",
			name, workflowID, queryTimeout)
	}
	return fmt.Errorf("query %s of %s: %w", name, workflowID, err)
}

// wholeTrace reads a run's whole trace, on a client already dialed: every
// page, and the archived part a closed generation holds (runmsg.ReadWholeTrace).
func (c *cli) wholeTrace(ctx context.Context, tc client.Client, workflowID, runID string) (signals.Trace, error) {
	return runmsg.ReadWholeTrace(ctx, workflowID, runID, func(id, runID string) runmsg.TraceQuery {
		return func(ctx context.Context, out *signals.Trace, qargs ...any) error {
			return c.queryWith(ctx, tc, id, runID, signals.QueryTrace, out, qargs...)
		}
	})
}
