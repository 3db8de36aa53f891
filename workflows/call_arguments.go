package workflows

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
)

// resolve is the first stage: the call's references are replaced by their
// values in State or the run's input; a reference that names nothing fails
// the call before it runs.
func (p *pipeline) resolve(ctx workflow.Context, c *stepCall) {
	args, problem := p.r.run.resolveArgs(c.args)
	if problem != "" {
		p.fail(ctx, c, problem, policies.Structural)
		return
	}
	if len(args) > config.MaxPayloadBytes {
		// References copy whole values; two large ones make an activity
		// input Temporal refuses.
		p.fail(ctx, c, config.OverPayload("the resolved arguments are", len(args))+
			": references copy whole values, so pass a part ("+refs.Prefix+"state.x.id) instead", policies.Structural)
		return
	}
	p.validate(ctx, c, args)
}

// resolveArgs replaces references by their values in the run's State or
// input.
func (run *Run) resolveArgs(args any) (json.RawMessage, string) {
	var input any = map[string]any{}
	if len(run.Input.Input) > 0 {
		if v, err := decodeJSON(run.Input.Input); err == nil {
			input = v
		}
	}
	resolved, errs := refs.Resolve(args, run.State, input)
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return nil, strings.Join(msgs, "; ")
	}
	return mustJSON(resolved), ""
}

// validate checks the resolved arguments against the tool's parameters
// schema: valid ones go on to the block stage, the others to repair.
func (p *pipeline) validate(ctx workflow.Context, c *stepCall, args json.RawMessage) {
	why := p.r.checkArgs(c.tool, args)
	if why == "" {
		p.block(ctx, c, args)
		return
	}
	p.repair(ctx, c, args, why)
}

// checkArgs validates arguments against the tool's parameters schema; ""
// means valid.
func (r *runner) checkArgs(tool config.Tool, args json.RawMessage) string {
	if tool.Parameters == nil {
		return ""
	}
	schema, err := r.toolSchema(tool)
	if err != nil {
		return err.Error()
	}
	doc, err := decodeJSON(args)
	if err != nil {
		return "arguments are not valid JSON: " + err.Error()
	}
	if err := schema.Validate(doc); err != nil {
		return "arguments do not match the tool's parameters schema: " + config.DescribeViolations(err)
	}
	return ""
}

// repair answers arguments that failed the schema: rules first (no model),
// then one focused model request for what needs judgement, bounded by the
// agent's repair.max_attempts. Rules answer at once; a model request takes
// a while: both run in a coroutine the other calls do not wait on.
func (p *pipeline) repair(ctx workflow.Context, c *stepCall, args json.RawMessage, why string) {
	if p.r.mend().Left(c.nodeID) <= 0 {
		p.fail(ctx, c, why, policies.Structural)
		return
	}
	var fixed json.RawMessage
	var problem string
	p.async(ctx, func(g workflow.Context) {
		fixed, problem = p.r.mend().Before(g, c.nodeID, c.tool, args, why)
	}, func() {
		if problem != "" {
			p.fail(ctx, c, problem, policies.Structural)
			return
		}
		p.block(ctx, c, fixed)
	})
}

// block fails a call the loop ladder's explore rung forbade (this exact
// tool and these arguments); the others go on to approval, or straight to
// routing when their tool needs none for these arguments (asks).
func (p *pipeline) block(ctx workflow.Context, c *stepCall, args json.RawMessage) {
	c.resolved = args
	if isBlocked(p.r.run, c.tool.Name, args) {
		p.fail(ctx, c, blockedText(c.tool.Name), policies.Blocked)
		return
	}
	if c.tool.Approval.MayAsk() && !p.ledgerAnswers(ctx, c, args) && p.asks(ctx, c, c.tool, args) {
		p.approval(ctx, c, c.tool, args, func(tool config.Tool, decided json.RawMessage) { p.route(ctx, c, tool, decided) })
		return
	}
	p.route(ctx, c, c.tool, args)
}

// isBlocked says whether the loop ladder blocked this exact call.
func isBlocked(run *Run, tool string, args []byte) bool {
	return len(run.Blocked) > 0 && slices.Contains(run.Blocked, policies.BlockKey(tool, args, toolVolatile(run, tool)))
}

func blockedText(tool string) string {
	return fmt.Sprintf("blocked: this exact call of %s was repeating in a loop; change the arguments or try another way", tool)
}
