package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
)

// The way of one call through a step: resolve its references, check (and
// if needed repair) its arguments, wait for approval, pass its breaker,
// run it (and re-issue it when a repair answers a refusal). Every wait —
// a repair request to the model, a person's decision, the tool itself — is
// a future on the step's selector, so no call holds up another; running
// counts those futures, and each AddFuture below adds one.

// startCall takes a call whose dependencies have finished.
func (r *runner) startCall(ctx workflow.Context, sel workflow.Selector, c *stepCall, running *int) {
	args, problem := r.resolveArgs(c.args)
	if problem != "" {
		r.failCall(ctx, c, problem, classStructural)
		return
	}
	why := r.checkArgs(c.tool, args)
	if why == "" {
		r.proceed(ctx, sel, c, args, running)
		return
	}
	if r.repairsLeft(c.nodeID) <= 0 {
		r.failCall(ctx, c, why, classStructural)
		return
	}
	// Rules answer at once; a model request for what needs judgement
	// takes a while: both run in a coroutine the step does not wait on.
	var fixed json.RawMessage
	r.async(ctx, sel, running, func(g workflow.Context) {
		fixed, problem = r.repairBefore(g, c.nodeID, c.tool, args, why)
	}, func() {
		if problem != "" {
			r.failCall(ctx, c, problem, classStructural)
			return
		}
		r.proceed(ctx, sel, c, fixed, running)
	})
}

// proceed takes a call whose arguments are valid: blocked calls fail, calls
// needing approval wait for it, the rest pass the breaker and run.
func (r *runner) proceed(ctx workflow.Context, sel workflow.Selector, c *stepCall, args json.RawMessage, running *int) {
	c.resolved = args
	if r.isBlocked(c.tool.Name, args) {
		r.failCall(ctx, c, blockedText(c.tool.Name), classBlocked)
		return
	}
	if c.tool.Approval != config.ApprovalAlways {
		r.launch(ctx, sel, c, c.tool, args, running)
		return
	}
	if n := r.run.node(c.nodeID); n != nil {
		n.Args = args
	}
	var outcome approvalOutcome
	var waitErr error
	r.async(ctx, sel, running, func(g workflow.Context) {
		outcome, waitErr = r.awaitApproval(g, c.nodeID)
	}, func() {
		if waitErr != nil {
			r.failCall(ctx, c, errorText(waitErr), "canceled")
			return
		}
		tool, decided, problem := r.decide(ctx, c.nodeID, c.tool, args, outcome)
		if problem != "" {
			r.failCall(ctx, c, problem, classRefused)
			return
		}
		if r.isBlocked(tool.Name, decided) {
			r.failCall(ctx, c, blockedText(tool.Name), classBlocked)
			return
		}
		c.resolved = decided
		r.launch(ctx, sel, c, tool, decided, running)
	})
}

// launch routes a call through its tool's breaker and runs it.
func (r *runner) launch(ctx workflow.Context, sel workflow.Selector, c *stepCall, tool config.Tool, args json.RawMessage, running *int) {
	routed, problem := r.routeApproved(ctx, tool)
	if problem != "" {
		r.failCall(ctx, c, problem, classOpen)
		return
	}
	r.issue(ctx, sel, c, routed, args, 0, running)
}

// issue starts one attempt of a call; a refusal the repair can answer
// issues the next attempt from the selector callback.
func (r *runner) issue(ctx workflow.Context, sel workflow.Selector, c *stepCall, tool config.Tool, args json.RawMessage, attempt int, running *int) {
	*running++
	sel.AddFuture(r.toolFuture(ctx, c.nodeID, attempt, tool, args), func(f workflow.Future) {
		var result json.RawMessage
		err := f.Get(ctx, &result)
		if !r.canRepairRefusal(ctx, c.nodeID, tool, args, err) {
			c.errText, c.class = r.settleTool(ctx, c.nodeID, tool, c.write, result, err)
			c.done = true
			return
		}
		// The repair (perhaps a model request) runs beside the other calls.
		var fixed json.RawMessage
		var ok bool
		r.async(ctx, sel, running, func(g workflow.Context) {
			fixed, ok = r.repairAfter(g, c.nodeID, tool, args, errorText(err))
		}, func() {
			if !ok || r.tried(c.nodeID, fixed) {
				c.errText, c.class = r.settleTool(ctx, c.nodeID, tool, c.write, nil, err)
				c.done = true
				return
			}
			c.resolved = fixed
			r.issue(ctx, sel, c, tool, fixed, attempt+1, running)
		})
	})
}

// async runs work in a coroutine and then, on the step's selector, next.
func (r *runner) async(ctx workflow.Context, sel workflow.Selector, running *int, work func(workflow.Context), next func()) {
	fut, set := workflow.NewFuture(ctx)
	workflow.Go(ctx, func(g workflow.Context) {
		work(g)
		set.Set(nil, nil)
	})
	*running++
	sel.AddFuture(fut, func(workflow.Future) { next() })
}

// failCall settles a call that will not run.
func (r *runner) failCall(ctx workflow.Context, c *stepCall, why, class string) {
	c.errText, c.class, c.done = why, class, true
	r.finishNode(ctx, c.nodeID, nil, why)
}
