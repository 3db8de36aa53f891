package workflows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// Reserved tool names the engine adds to every agent.
const (
	FinalOutputTool = signals.FinalOutputTool
	HandoffTool     = signals.HandoffTool
)

// OutputPathArg is the optional argument every tool gains: where in the
// run's State its result is written.
const OutputPathArg = refs.OutputPathArg

// finalCall is a final_output call whose arguments passed the output schema.
type finalCall struct {
	callID string
	output json.RawMessage
}

// keepClasses notes on each failed call's node how it failed, so an edit
// that keeps the call, and a person reading the trace, see it.
func keepClasses(run *Run, calls []*stepCall) {
	for _, c := range calls {
		if n := run.node(c.nodeID); n != nil && c.class != "" {
			n.Class = c.class
		}
	}
}

// runCalls runs the calls of one reply: every call whose references are
// met runs at once, the others as the calls they wait for finish; errors
// found before running (unknown tool, bad JSON, schema, references) and
// after (the tool's) settle the call's node, and the model reads them in
// the next request. A valid final_output is the step's output. After an
// edit (resume), the calls the edit kept are not run again and a call a
// person gave new arguments runs with them.
func (p *pipeline) runCalls(ctx workflow.Context, reqID string, calls []activities.ToolCall, resume *editResume) (*finalCall, []*stepCall, error) {
	r := p.r
	step := make([]*stepCall, len(calls))
	ids := make([]string, len(calls))
	limit := len(calls)
	if max := r.run.Spec.Agent.Policies.Limits.PerReply(); len(calls) > max {
		limit = max
	}
	for i, tc := range calls {
		if c := resume.keptCall(r.run, reqID, tc); c != nil {
			step[i], ids[i] = c, c.nodeID
			continue
		}
		if c := r.heldCall(ctx, reqID, tc, resume); c != nil {
			step[i], ids[i] = c, c.nodeID
			continue
		}
		if c := p.stream.streamedFor(i, tc); c != nil {
			// Taken while the reply streamed (and started, if it waited on
			// nothing): the same call, never run twice.
			step[i], ids[i] = c, c.nodeID
			continue
		}
		if i >= limit {
			// Answered, since the model expects an answer to each call,
			// but not run (and its arguments not kept a second time).
			step[i] = p.refuseCall(ctx, reqID, tc, overCallsPerReply(len(calls), limit))
			ids[i] = step[i].nodeID
			continue
		}
		tc, ranAs := resume.editedCall(tc)
		node := r.addNode(ctx, Node{Node: signals.Node{
			Kind: signals.KindCall, Status: signals.StatusPending, Parents: []string{reqID},
			Tool: tc.Name, Args: rawOrString(tc.Args),
		}, ModelCallID: tc.ID, Step: r.run.Step, RanAs: ranAs})
		ids[i] = node.ID
		step[i] = p.prepareCall(ctx, node.ID, tc)
	}
	p.planCalls(ctx, step)
	final, stopErr := p.drive(ctx, step)
	keepClasses(r.run, step)
	r.run.Called(ids)
	if stopErr != nil {
		return nil, step, stopErr
	}
	return final, step, nil
}

// refuseCall answers a call of a reply that will not run, without its
// arguments.
func (p *pipeline) refuseCall(ctx workflow.Context, reqID string, tc activities.ToolCall, why string) *stepCall {
	r := p.r
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindCall, Status: signals.StatusFailed, Parents: []string{reqID}, Tool: tc.Name, Error: why,
	}, ModelCallID: tc.ID, Step: r.run.Step})
	return &stepCall{nodeID: node.ID, name: tc.Name, started: true, done: true, errText: why, class: policies.Structural}
}

// prepareCall checks what can be checked before any call runs: the tool
// exists, the arguments are a JSON object, the _outputPath and references
// are well formed. A call failing here is settled at once.
func (p *pipeline) prepareCall(ctx workflow.Context, id string, tc activities.ToolCall) *stepCall {
	r := p.r
	c := &stepCall{nodeID: id, name: tc.Name}
	fail := func(msg string) *stepCall {
		r.finishNode(ctx, id, nil, msg)
		c.started, c.done = true, true
		c.errText, c.class = msg, policies.Structural
		return c
	}
	args, problem := parseArgs(tc.Args)
	if problem != "" {
		fixed, ok := r.mend().Text(ctx, id, tc)
		if !ok {
			return fail(problem)
		}
		args = fixed
	}
	if tc.Name == HandoffTool && r.run.offerHandoff {
		ask, problem := r.handoffs().CallAsk(args)
		if problem != "" {
			return fail(problem)
		}
		c.handoff = ask
		return c
	}
	if tc.Name == FinalOutputTool {
		c.final = true
	} else {
		tool, ok := r.run.Spec.AgentTool(tc.Name)
		if !ok {
			return fail(unknownTool(tc.Name, toolNames(r.run.Spec)))
		}
		c.tool = tool
	}
	doc, err := decodeJSON(args)
	if err != nil {
		return fail("arguments are not valid JSON: " + err.Error())
	}
	obj := doc.(map[string]any)
	if raw, ok := obj[OutputPathArg]; ok {
		delete(obj, OutputPathArg)
		if c.final {
			return fail(OutputPathArg + " does not apply to " + FinalOutputTool + ": its arguments are the output")
		}
		s, isString := raw.(string)
		if !isString {
			return fail(OutputPathArg + " must be a string †state.<path>")
		}
		path, err := refs.ParseOutputPath(s)
		if err != nil {
			return fail(err.Error())
		}
		c.write = &path
	}
	found := refs.Find(obj)
	for _, f := range found {
		if f.Err != nil {
			return fail(fmt.Sprintf("argument %s: %v", f.At, f.Err))
		}
	}
	c.args = obj
	c.reads = refs.Reads(found)
	return c
}

// planCalls works out which calls wait for which, and fails the calls that
// wait on themselves. final_output waits for every other call.
func (p *pipeline) planCalls(ctx workflow.Context, step []*stepCall) {
	io := make([]refs.CallIO, len(step))
	for i, c := range step {
		if !c.done {
			io[i] = refs.CallIO{Reads: c.reads, Write: c.write}
		}
	}
	deps, cyclic := refs.Plan(io)
	for i, c := range step {
		c.deps = deps[i]
		if c.final || c.handoff != nil {
			c.deps = nil
			for j := range step {
				if j != i && !step[j].final && step[j].handoff == nil {
					c.deps = append(c.deps, j)
				}
			}
		}
		if cyclic[i] && !c.done {
			c.errText = fmt.Sprintf("cyclic reference: %s waits, through the calls of this step, on its own %s", c.name, describeWaits(c, step))
			p.r.finishNode(ctx, c.nodeID, nil, c.errText)
			c.started, c.done, c.class = true, true, policies.Structural
		}
	}
}

func describeWaits(c *stepCall, step []*stepCall) string {
	if c.write == nil {
		return "output"
	}
	var on []string
	for _, d := range c.deps {
		on = append(on, step[d].nodeID)
	}
	if len(on) == 0 {
		return "output " + c.write.String() + " (it reads the path it writes)"
	}
	return fmt.Sprintf("output %s (it waits on %s)", c.write, strings.Join(on, ", "))
}

// settleFinal resolves and checks a final_output once the step's other
// calls have finished.
func (p *pipeline) settleFinal(ctx workflow.Context, c *stepCall) (*finalCall, error) {
	r := p.r
	args, problem := r.run.resolveArgs(c.args)
	if problem == "" {
		var errText string
		args, errText = r.outputs().checkOutput(ctx, args)
		problem = errText
	}
	if problem != "" {
		return nil, r.outputs().failOutput(ctx, c.nodeID, problem)
	}
	if n := r.run.node(c.nodeID); n != nil {
		n.Args = args
	}
	r.finishNode(ctx, c.nodeID, args, "")
	return &finalCall{callID: c.nodeID, output: args}, nil
}

// parseArgs checks that a call's arguments are a JSON object.
func parseArgs(text string) (json.RawMessage, string) {
	if strings.TrimSpace(text) == "" {
		return json.RawMessage(`{}`), ""
	}
	if !json.Valid([]byte(text)) {
		return nil, fmt.Sprintf("arguments are not valid JSON: %s", shortText(text, 200))
	}
	if !isJSONObject([]byte(text)) {
		return nil, "arguments must be a JSON object"
	}
	return json.RawMessage(text), ""
}

func isJSONObject(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

func shortText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// toolNames lists what the model may call.
func toolNames(spec *config.Resolved) []string {
	return append(append([]string{}, spec.Agent.Tools...), FinalOutputTool)
}
