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
)

// readyCall resolves a call's references and checks its arguments against
// the tool's schema and the blocked calls; problem says why it cannot run.
func (r *runner) readyCall(tool config.Tool, args any) (resolved json.RawMessage, problem, class string) {
	resolved, problem = r.resolveArgs(args)
	if problem == "" {
		problem = r.checkArgs(tool, resolved)
	}
	if problem != "" {
		return nil, problem, classStructural
	}
	if r.isBlocked(tool.Name, resolved) {
		return resolved, fmt.Sprintf("blocked: this exact call of %s was repeating in a loop; change the arguments or try another way", tool.Name), classBlocked
	}
	return resolved, "", ""
}

// route applies the tool's circuit breaker: a tool whose breaker is open
// is replaced by its fallback (substitute), or not called at all.
func (r *runner) route(ctx workflow.Context, tool config.Tool) (config.Tool, string) {
	b := r.breaker(tool.Name)
	if b.Allow(workflow.Now(ctx)) {
		return tool, ""
	}
	if tool.Fallback != "" {
		if fb, ok := r.run.Spec.Tool(tool.Fallback); ok {
			return fb, ""
		}
	}
	return tool, fmt.Sprintf("circuit open: %s failed %d times in a row; it is not called until its cooldown passes", tool.Name, b.Failures)
}

// toolFuture starts a tool activity with the tool's timeout and retry
// policy.
func (r *runner) toolFuture(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage) workflow.Future {
	if n := r.run.node(nodeID); n != nil {
		n.Status = signals.StatusRunning
		n.Args = args
		n.Tool = tool.Name
	}
	actx := workflow.WithActivityOptions(ctx, toolOptions(tool))
	return workflow.ExecuteActivity(actx, acts.RunTool, activities.ToolRequest{CallID: nodeID, Tool: tool, Args: args})
}

// settleTool records a finished tool activity: the node, the breaker, and
// the _outputPath write (last write wins, in completion order).
func (r *runner) settleTool(ctx workflow.Context, nodeID string, tool config.Tool, write *refs.Path, f workflow.Future) (errText, class string) {
	var result json.RawMessage
	err := f.Get(ctx, &result)
	if err != nil {
		errText, class = errorText(err), failureClass(err)
		r.run.LastError = errText
		r.finishNode(ctx, nodeID, nil, errText)
	} else {
		r.finishNode(ctx, nodeID, result, "")
		if write != nil {
			if v, derr := decodeJSON(result); derr == nil {
				refs.Write(r.run.State, *write, v)
			}
		}
	}
	if err == nil {
		r.breaker(tool.Name).Record(workflow.Now(ctx), true)
	} else {
		r.breaker(tool.Name).RecordError(workflow.Now(ctx), policies.Class(class))
	}
	return errText, class
}

// callTool runs one tool call to its end (graph tool nodes).
func (r *runner) callTool(ctx workflow.Context, nodeID string, tool config.Tool, args any, write *refs.Path) (errText, class string, resolved json.RawMessage) {
	resolved, problem, class := r.readyCall(tool, args)
	if problem == "" {
		var routed config.Tool
		routed, problem = r.route(ctx, tool)
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
	errText, class = r.settleTool(ctx, nodeID, tool, write, r.toolFuture(ctx, nodeID, tool, resolved))
	return errText, class, resolved
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
