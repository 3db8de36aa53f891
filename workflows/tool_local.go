package workflows

import (
	"encoding/json"
	"errors"
	"slices"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
)

// Local tools (config.Tool.RunsLocal) run as local activities: in this
// worker, inside the workflow task that decided the call, with no
// activity task for the server to schedule and dispatch and no workflow
// task to take the result. The call is the same RunTool with the same
// request, so its idempotency key is too; the history records its result
// in one marker. A call that still fails or runs past
// config.LocalToolBound goes on as a normal activity, with the tool's
// whole retry policy: a slow or flaky tool is no worse off than before.

// localToolFuture runs a call as a local activity, and as a normal one
// (opts) when the local one ran out of its bound.
func localToolFuture(ctx workflow.Context, guard *runGuard, tool config.Tool, opts workflow.ActivityOptions, req activities.ToolRequest) workflow.Future {
	// Within the bound a local call is retried by the tool's own policy;
	// past it, the normal activity starts the policy again, so a failing
	// call is tried at most twice its max_attempts (and the worker's
	// breaker refuses the tool after 5 failures across runs). A tool that
	// may be tried only once does not go on.
	retry := *opts.RetryPolicy
	once := retry.MaximumAttempts == 1
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		ScheduleToCloseTimeout: config.LocalToolBound.D(),
		StartToCloseTimeout:    tool.LocalTimeout(),
		RetryPolicy:            &retry,
		Summary:                opts.Summary,
	})
	fut, settle := workflow.NewFuture(ctx)
	guard.goGuarded(ctx, "the local call "+req.CallID, func(g workflow.Context) {
		var out json.RawMessage
		err := workflow.ExecuteLocalActivity(lctx, acts.RunTool, req).Get(g, &out)
		if !once && goesOnRemote(err, retry.NonRetryableErrorTypes) {
			err = workflow.ExecuteActivity(workflow.WithActivityOptions(g, opts), acts.RunTool, req).Get(g, &out)
		}
		settle.Set(out, err)
	}, func() { settle.Set(nil, temporal.NewCanceledError("the call's coroutine panicked: the run stops")) })
	return fut
}

// goesOnRemote says a local call's failure is the bound's, not the
// tool's answer: it timed out, or its last error was one a retry may
// mend. A non-retryable error (bad arguments, a fatal class, a result
// too large) is the call's answer, as from a normal activity; so is a
// cancellation.
func goesOnRemote(err error, nonRetryable []string) bool {
	if err == nil {
		return false
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return true
	}
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) {
		return false
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return !app.NonRetryable() && !slices.Contains(nonRetryable, app.Type())
	}
	return false
}
