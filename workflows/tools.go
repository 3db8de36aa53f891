package workflows

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// Classes the engine itself gives to failures found before a tool runs.
const (
	classStructural = "structural" // arguments, references, schema
	classBlocked    = "blocked"    // an exact call the loop ladder blocked
	classOpen       = "circuit_open"
	classRefused    = "refused" // a person rejected the call, or no decision came
)

// readyCall resolves a call's references and checks its arguments against
// the tool's schema and the blocked calls; problem says why it cannot run.
func (r *runner) readyCall(ctx workflow.Context, nodeID string, tool config.Tool, args any) (resolved json.RawMessage, problem, class string) {
	resolved, problem = r.resolveArgs(args)
	if problem != "" {
		return nil, problem, classStructural
	}
	if problem = r.checkArgs(tool, resolved); problem != "" {
		// Bad arguments: repair by rule, then ask the model, bounded.
		if resolved, problem = r.repairBefore(ctx, nodeID, tool, resolved, problem); problem != "" {
			return nil, problem, classStructural
		}
	}
	if r.isBlocked(tool.Name, resolved) {
		return resolved, blockedText(tool.Name), classBlocked
	}
	return resolved, "", ""
}

func blockedText(tool string) string {
	return fmt.Sprintf("blocked: this exact call of %s was repeating in a loop; change the arguments or try another way", tool)
}

// route applies the tool's circuit breaker: a tool whose breaker is open
// is replaced by its fallback (substitute), or not called at all.
func (r *runner) route(ctx workflow.Context, tool config.Tool) (config.Tool, string) {
	first := tool
	// Follow fallbacks while breakers are open; each tool once at most.
	for seen := map[string]bool{}; !seen[tool.Name]; {
		seen[tool.Name] = true
		if r.breaker(tool.Name).Allow(workflow.Now(ctx)) {
			return tool, ""
		}
		fb, ok := r.run.Spec.Tool(tool.Fallback)
		if tool.Fallback == "" || !ok {
			break
		}
		tool = fb
	}
	return first, fmt.Sprintf("circuit open: %s failed %d times in a row; it is not called until its cooldown passes", first.Name, r.breaker(first.Name).Failures)
}

// routeApproved is route for a call that may have been approved: it never
// substitutes a fallback that needs an approval of its own.
func (r *runner) routeApproved(ctx workflow.Context, tool config.Tool) (config.Tool, string) {
	routed, problem := r.route(ctx, tool)
	if problem == "" && routed.Name != tool.Name && routed.Approval == config.ApprovalAlways {
		return tool, fmt.Sprintf("circuit open: %s is not called until its cooldown passes, and its fallback %s needs an approval of its own", tool.Name, routed.Name)
	}
	return routed, problem
}

// toolFuture starts a tool activity with the tool's timeout and retry
// policy. attempt > 0 is a repaired re-issue: it gets its own call id, so
// its idempotency key differs from the refused call's.
func (r *runner) toolFuture(ctx workflow.Context, nodeID string, attempt int, tool config.Tool, args json.RawMessage) workflow.Future {
	// The node keeps the tool the model asked for (blocking and loops go
	// by it); a substitute shows in the escalation that opened the breaker.
	if n := r.run.node(nodeID); n != nil {
		n.Status = signals.StatusRunning
		n.Args = args
	}
	callID := nodeID
	if attempt > 0 {
		callID = fmt.Sprintf("%s-r%d", nodeID, attempt)
	}
	actx := workflow.WithActivityOptions(ctx, toolOptions(tool))
	return workflow.ExecuteActivity(actx, acts.RunTool, activities.ToolRequest{CallID: callID, Tool: activities.ToolRef{Name: tool.Name}, Args: args})
}

// toolOutcome reads a finished tool activity. When the tool refused the
// arguments (invalid_args) and a repair finds better ones, retryArgs holds
// them and the call should be issued again instead of settled.
func (r *runner) toolOutcome(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage, f workflow.Future) (result json.RawMessage, err error, retryArgs json.RawMessage) {
	err = f.Get(ctx, &result)
	if r.canRepairRefusal(ctx, nodeID, tool, args, err) {
		if fixed, ok := r.repairAfter(ctx, nodeID, tool, args, errorText(err)); ok && !r.tried(nodeID, fixed) {
			return nil, err, fixed
		}
	}
	return result, err, nil
}

// canRepairRefusal says whether a tool's refusal (invalid_args) may be
// answered by repairing and re-issuing the call. Never for a tool that
// needs approval: a person approved those arguments, not repaired ones.
func (r *runner) canRepairRefusal(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage, err error) bool {
	if err == nil || cancelled(ctx, err) || failureClass(err) != string(policies.InvalidArgs) {
		return false
	}
	if tool.Approval == config.ApprovalAlways || r.repairsLeft(nodeID) <= 0 {
		return false
	}
	r.tried(nodeID, args)
	return true
}

// settleTool records a finished tool call: the node, the breaker, and the
// _outputPath write (last write wins, in completion order).
func (r *runner) settleTool(ctx workflow.Context, nodeID string, tool config.Tool, write *refs.Path, result json.RawMessage, err error) (errText, class string) {
	if err != nil {
		errText, class = errorText(err), failureClass(err)
		r.finishNode(ctx, nodeID, nil, errText)
		if cancelled(ctx, err) {
			return errText, "canceled" // neither the tool's failure nor a loop event
		}
		r.run.LastError = errText
		r.breaker(tool.Name).RecordError(workflow.Now(ctx), policies.Class(class))
		return errText, class
	}
	r.finishNode(ctx, nodeID, result, "")
	if write != nil {
		if v, derr := decodeJSON(result); derr == nil {
			refs.Write(r.run.State, *write, stateValue(v))
		}
	}
	r.breaker(tool.Name).Record(workflow.Now(ctx), true)
	return "", ""
}

// callTool runs one tool call to its end (graph tool nodes), re-issuing
// it with repaired arguments when the tool refuses them.
func (r *runner) callTool(ctx workflow.Context, nodeID string, tool config.Tool, args any, write *refs.Path) (errText, class string, resolved json.RawMessage) {
	resolved, problem, class := r.readyCall(ctx, nodeID, tool, args)
	if problem == "" && tool.Approval == config.ApprovalAlways {
		if n := r.run.node(nodeID); n != nil {
			n.Args = resolved
		}
		o, err := r.awaitApproval(ctx, nodeID)
		if err != nil {
			r.finishNode(ctx, nodeID, nil, errorText(err))
			return errorText(err), "canceled", resolved
		}
		var decided json.RawMessage
		tool, decided, problem = r.decide(ctx, nodeID, tool, resolved, o)
		if problem != "" {
			class = classRefused
		} else {
			resolved = decided
		}
	}
	if problem == "" {
		var routed config.Tool
		routed, problem = r.routeApproved(ctx, tool)
		if problem != "" {
			class = classOpen
		}
		tool = routed
	}
	if problem != "" {
		r.finishNode(ctx, nodeID, nil, problem)
		r.run.LastError = problem
		return problem, class, resolved
	}
	for attempt := 0; ; attempt++ {
		result, err, retry := r.toolOutcome(ctx, nodeID, tool, resolved, r.toolFuture(ctx, nodeID, attempt, tool, resolved))
		if retry == nil {
			errText, class = r.settleTool(ctx, nodeID, tool, write, result, err)
			return errText, class, resolved
		}
		resolved = retry
	}
}

// failureClass is the class of a tool activity's failure (its application
// error type), or "timeout".
func failureClass(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Type()
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return "timeout"
	}
	return "error"
}

// callKey identifies a call for loops and blocking: where, which tool,
// which canonical arguments.
func callKey(where, tool string, args json.RawMessage) string {
	return policies.CanonicalSignature(where, tool, args, "", policies.DefaultVolatile)
}
