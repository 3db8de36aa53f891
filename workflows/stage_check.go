package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// check holds a call its tool answered with success to what the tool
// promises (config.Verify): its result_schema, then its verify, an
// expression or a read-back call. A call that passes settles as it came;
// one that fails settles failed with class unverified and a reason the
// model reads, so a tool that says "ok" and does nothing is caught.
func (p *pipeline) check(ctx workflow.Context, c *stepCall, tool config.Tool, args, result json.RawMessage) {
	if !tool.Checked() || versionOf(ctx, versionCheckedCalls, 1) == workflow.DefaultVersion {
		p.settle(ctx, c, tool, result, nil)
		return
	}
	argv, res := decodedArgs(args), decodedOrNil(result)
	verdict := func(ck signals.Check) { p.verdict(ctx, c, tool, result, ck) }
	if tool.ResultSchema != nil {
		if ck := p.resultSchemaCheck(tool, res); !ck.Passed {
			verdict(ck)
			return
		}
	}
	v := tool.Verify
	switch {
	case v == nil:
		verdict(signals.Check{Kind: signals.CheckResultSchema, Passed: true})
	case v.ReadBack():
		p.readBack(ctx, c, tool, argv, res, verdict)
	default:
		verdict(p.condition(ctx, signals.CheckVerify, "verify", v.Expr, args, result))
	}
}

// verdict settles a checked call as its check says: verified,
// unverified, or unknown when its read-back could not read
// (stage_unknown.go).
func (p *pipeline) verdict(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage, ck signals.Check) {
	switch {
	case ck.Passed:
		p.verified(ctx, c, tool, result, ck)
	case ck.Unknown:
		p.unknown(ctx, c, tool, result, ck)
	default:
		p.unverified(ctx, c, tool, result, ck)
	}
}

// verified settles a call that passed its check, the verdict on its node.
func (p *pipeline) verified(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage, ck signals.Check) {
	p.settle(ctx, c, tool, result, nil)
	if n := p.r.run.node(c.nodeID); n != nil {
		n.Check = &ck
	}
}

// unverified settles a call that failed its check: failed, class
// unverified, what the tool answered kept beside the reason (the
// console shows both, and a write tried again reads it back: ledger).
// Its tool's breaker counts it as a failure.
func (p *pipeline) unverified(ctx workflow.Context, c *stepCall, tool config.Tool, result json.RawMessage, ck signals.Check) {
	r := p.r
	p.checkFailed(ctx, c, result, ck, policies.Unverified)
	r.run.Unverified++
	r.count(ctx, MetricUnverified, 1, "tool", tool.Name, "check", ck.Kind)
	r.escape().Breaker(tool.Name).RecordError(workflow.Now(ctx), c.class)
}

// checkFailed settles c failed as its check says, of class, what the
// tool answered (result) kept beside the reason.
func (p *pipeline) checkFailed(ctx workflow.Context, c *stepCall, result json.RawMessage, ck signals.Check, class policies.Class) {
	r := p.r
	c.done = true
	c.errText, c.class = ck.Reason, class
	r.finishNode(ctx, c.nodeID, nil, c.errText)
	if n := r.run.node(c.nodeID); n != nil {
		n.Output, n.Check = result, &ck
	}
	r.run.LastError = c.errText
}

// readBack calls the tool's read-back with arguments naming the checked
// call's (†args.x, †result.x): a call of its own in the trace (check_of
// names the call it checks), with the read tool's retry policy. Its
// result is held to verify.expect and the verdict handed to then; a
// read-back that could not read, or that the read tool's open breaker
// holds back, hands on an unknown verdict (stage_unknown.go).
func (p *pipeline) readBack(ctx workflow.Context, c *stepCall, tool config.Tool, args map[string]any, result any, then func(signals.Check)) {
	r, v := p.r, tool.Verify
	failed := func(reason, nodeID string) { then(readBackFailure(v, reason, nodeID)) }
	rbTool, ok := r.run.Spec.Tool(v.Tool)
	if !ok {
		failed(fmt.Sprintf("read-back %s: not a tool of this run", v.Tool), "")
		return
	}
	rbArgs, errs := refs.ResolveCheck(v.Args, args, result)
	if len(errs) > 0 {
		failed(fmt.Sprintf("read-back %s: %v", v.Tool, errs[0]), "")
		return
	}
	if wait := p.readBreakerWait(ctx, v.Tool); wait > 0 {
		p.async(ctx, func(g workflow.Context) { _ = workflow.Sleep(g, wait) }, func() {
			p.readBackCall(ctx, c, tool, v, rbTool, rbArgs, args, then)
		})
		return
	}
	p.readBackCall(ctx, c, tool, v, rbTool, rbArgs, args, then)
}

// readBackCall makes the read-back call, unless its tool's breaker holds
// it back.
func (p *pipeline) readBackCall(ctx workflow.Context, c *stepCall, tool config.Tool, v *config.Verify, rbTool config.Tool, rbArgs any, args map[string]any, then func(signals.Check)) {
	r := p.r
	if why := p.readBreakerHolds(ctx, v.Tool); why != "" {
		then(unknownCheck(v, why, ""))
		return
	}
	raw := mustJSON(rbArgs)
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindCall, Status: signals.StatusPending, Parents: []string{c.nodeID},
		Tool: v.Tool, Args: raw, CheckOf: c.nodeID,
	}, Step: r.run.Step})
	id := node.ID
	p.budget.SpendCall(ctx, id, v.Tool)
	p.running++
	checkedArgs := mustJSON(args)
	p.sel.AddFuture(p.toolFuture(ctx, id, "", 0, rbTool, raw), func(f workflow.Future) {
		p.running--
		var out json.RawMessage
		if err := f.Get(ctx, &out); err != nil {
			r.finishNode(ctx, id, nil, errorText(err))
			if cancelled(ctx, err) {
				p.settle(ctx, c, tool, nil, err) // the run's end, not the call's verdict
				return
			}
			if !policies.ReadBackAnswered(failureClass(err)) && readBackUnknown(ctx) {
				p.chargeFailure(ctx, v.Tool, failureClass(err))
				then(unknownCheck(v, fmt.Sprintf("its read-back %s could not read (%s)", v.Tool, errorText(err)), id))
				return
			}
			then(readBackFailure(v, fmt.Sprintf("read-back %s failed, so the call is not known to have worked: %s", v.Tool, errorText(err)), id))
			return
		}
		r.finishNode(ctx, id, out, "")
		p.readBackRead(ctx, v.Tool)
		what := fmt.Sprintf("read-back %s(%s): expect", v.Tool, raw)
		ck := p.condition(ctx, signals.CheckReadBack, what, v.Expect, checkedArgs, out)
		ck.ReadBack = id
		then(ck)
	})
}

// readBackFailure is the verdict of a read-back that failed for reason
// (nodeID: the read-back's node, if it ran).
func readBackFailure(v *config.Verify, reason, nodeID string) signals.Check {
	return signals.Check{Kind: signals.CheckReadBack, Condition: v.Expect, Reason: reason, ReadBack: nodeID}
}

// resultSchemaCheck holds a result to the tool's result_schema.
func (p *pipeline) resultSchemaCheck(tool config.Tool, result any) signals.Check {
	ck := signals.Check{Kind: signals.CheckResultSchema}
	schema, err := p.r.compiledSchema("result_schema "+tool.Name, "tool "+tool.Name+" result_schema", tool.ResultSchema)
	if err != nil {
		ck.Reason = err.Error()
		return ck
	}
	if err := schema.Validate(result); err != nil {
		ck.Reason = policies.ResultSchemaFailed(result, config.DescribeViolations(err))
		return ck
	}
	ck.Passed = true
	return ck
}

// condition evaluates a check's expression over a call's args and a
// result (numbers compare as numbers: policies.VerifyEnv); one that does
// not hold names the values it read.
func (p *pipeline) condition(ctx workflow.Context, kind, what, condition string, args, result json.RawMessage) signals.Check {
	argv, res := decodedArgs(args), decodedOrNil(result)
	o := p.r.exprs.evaluateGated(ctx, false, condition, policies.VerifyEnv(args, result), config.VerifyEnv{Args: argv, Result: res})
	if o.compileErr != nil {
		return signals.Check{Kind: kind, Condition: condition, Reason: fmt.Sprintf("%s %q does not compile: %v", what, condition, o.compileErr)}
	}
	return policies.ConditionCheck(kind, what, condition, o.prog.Node(), argv, res, o.held, o.runErr)
}

// decodedArgs are a call's arguments as a check reads them (nil when
// they are not an object).
func decodedArgs(args json.RawMessage) map[string]any {
	m, _ := decodedOrNil(args).(map[string]any)
	return m
}

func decodedOrNil(raw json.RawMessage) any {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil
	}
	return v
}
