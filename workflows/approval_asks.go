package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// asks decides whether call c of tool (the call's own, or a fallback
// serving it) waits for a person with these arguments
// (policies.ApprovalAsks): a condition (approval: {when}) is evaluated
// over the arguments, State and input, with its cost bound, and the call's
// node notes how it came out.
func (p *pipeline) asks(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage) bool {
	a := tool.Approval
	if !a.Conditional() {
		return a.Always()
	}
	if versionOf(ctx, versionApprovalWhen, 1) == workflow.DefaultVersion {
		return false
	}
	r := p.r
	argMap, _ := policies.ExprValue(args).(map[string]any)
	d := r.exprs.asks(a, config.ApprovalEnv{Args: argMap, State: r.run.State, Input: r.inputMap()})
	if n := r.run.node(c.nodeID); n != nil {
		n.Note = d.Note
		if tool.Name != c.tool.Name {
			n.Note = fmt.Sprintf("fallback %s: %s", tool.Name, d.Note)
		}
	}
	return d.Ask
}

// asks decides whether approval a asks a person in env
// (policies.ApprovalAsks): its condition evaluated with its cost bound, a
// condition that cannot be evaluated asking.
func (cs conditions) asks(a config.Approval, env config.ApprovalEnv) policies.ApprovalDecision {
	o := cs.evaluate(exprKey{approval: true, text: a.When}, env)
	err := o.compileErr
	if err == nil {
		err = o.runErr
	}
	return policies.ApprovalAsks(a, o.held, err)
}
