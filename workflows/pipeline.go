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
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/edit"
	"github.com/unstuck-dev/unstuck/workflows/handoff"
	"github.com/unstuck-dev/unstuck/workflows/ledger"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// The life of a call. Every tool call, whether the model asked for it or a
// graph tool node makes it, walks the same stages, each a method of the
// pipeline; a rule a stage applies is a pure function of policies/ or
// policies/repair. This file takes a reply's calls, orders them by their
// references and drives them; the stages follow in the order a call meets
// them, so its life reads top to bottom in two files:
//
//	call_arguments.go
//	  resolve   references (†state.x) replaced by their values
//	  validate  the arguments against the tool's schema
//	  repair    rule repair, then one focused model request
//	  block     exact calls the loop ladder blocked
//	call_stages.go
//	  approval  a person approves, changes, replaces or rejects (asks: whether to ask)
//	  route     breakers: the tool, its fallback, or no call
//	  outage    a tool that is down: the call waits it out, then is routed again
//	  ledger    the effect ledger: an identical write after an edit is not run twice
//	  run       the tool activity, with the tool's retry policy (or a local one)
//	  refusal   arguments the tool refused, repaired and re-issued
//	  settle    the trace node, State write, breaker and last error: every stage ends in it
//	  check     the tool's verify, which a result meets before it settles: a condition or
//	            a read-back; unknown outcomes, a write asked for again, no-op writes
//
// Every wait (a repair request, a person's decision, the tool itself) is a
// future on the pipeline's selector, so no call holds up another; the loop
// detector reads each settled call as a policies.CallEvent.

// stepCall is one call walking the pipeline.
type stepCall struct {
	nodeID string
	name   string // the tool the call names (the model's text for free-form calls)
	tool   config.Tool
	where  string     // the graph node that made the call; "" for the model's calls
	args   any        // decoded arguments without _outputPath, references unresolved
	write  *refs.Path // the _outputPath (or output_path), if any
	reads  []refs.Path
	deps   []int
	final  bool // final_output: runs once every other call has finished
	// handoff: the reserved handoff tool, settled like final_output (its
	// ask, checked before the step's calls ran).
	handoff *handoff.Ask
	// Where the call is in its life.
	started bool
	done    bool
	// held: the call waits for approval and the run continues as new
	// with it (package waiting); its node stays awaiting_approval.
	held bool
	// keyOf is the earlier call whose idempotency key this one takes: the
	// same write, tried before an edit invalidated it (pipeline.ledger).
	keyOf string
	// fallback is the tool routing sent the call to while the breaker of
	// the tool it names is open ("" when none): fallback.go.
	fallback string
	// routed is the tool the call was routed from (the one it names, or
	// a person's replacement): a call that waited out an outage is routed
	// from it again (pipeline.park); waited: it did, at least once.
	routed config.Tool
	waited bool
	// What happened: the arguments it ran with, and how it ended.
	resolved json.RawMessage
	errText  string
	class    policies.Class
	// noOp: a write that answered as its previous try did (repeatsItself).
	noOp bool
}

// pipeline runs calls through the stages on one selector; running counts
// the futures on it: each AddFuture of a stage adds one, and its callback
// takes it off (the selector may also wait on a streaming model request).
type pipeline struct {
	r *runner
	// budget is the run's, which each call asks before it runs and
	// counts once it does.
	budget *budget.Budget
	// effects is the run's effect ledger, which a write asks before it
	// runs (pipeline.ledger).
	effects *ledger.Ledger
	sel     workflow.Selector
	running int
	// inFlight counts the tool activities running; past the agent's
	// calls_in_flight, calls wait in line (queued) for one to end.
	inFlight int
	queued   []func()
	// stream is the request whose reply's calls this pipeline runs, when
	// it started some of them while the reply streamed (stream.go).
	stream *streaming
}

// newPipeline is a pipeline of its own for calls of the run r.
func newPipeline(ctx workflow.Context, r *runner) *pipeline {
	return &pipeline{r: r, budget: r.budget(), effects: r.ledger(), sel: workflow.NewSelector(ctx)}
}

// replyPipeline is the pipeline the calls of reply reqID walk: the one
// that started some of them while the reply streamed, or a new one.
func replyPipeline(ctx workflow.Context, r *runner, reqID string) *pipeline {
	s := r.requests().streamOf(reqID)
	if s == nil {
		return newPipeline(ctx, r)
	}
	s.p.stream = s
	return s.p
}

// drive runs calls to their end: each call whose dependencies have
// finished enters the pipeline, side by side with the others (and with
// calls under way on it already: stream.go), and the selector takes
// whichever wait ends first. A final_output call settles once every other
// call is done; its output, when valid, is the answer. It returns once
// every one of calls is done, each failed call's node noting its class.
func (p *pipeline) drive(ctx workflow.Context, calls []*stepCall) (final *finalCall, stopErr error) {
	r := p.r
	defer keepClasses(r.run, calls)
	for {
		for _, c := range calls {
			if c.started || c.done || !depsDone(c, calls) {
				continue
			}
			if r.life.Interrupting() || r.life.Switching() {
				break
			}
			c.started = true
			if c.handoff != nil {
				settleHandoffCall(ctx, r.handoffs(), c)
				continue
			}
			if c.final {
				f, err := p.settleFinal(ctx, c)
				c.done = true
				if f != nil && final == nil {
					final = f // a later, invalid final_output does not undo it
				}
				if err != nil {
					stopErr = err
				}
				continue
			}
			p.resolve(ctx, c)
		}
		if p.running == 0 {
			break
		}
		p.sel.Select(ctx)
	}
	// Every call gets an answer, even one that could not run; but a call
	// the next generation takes up again (package waiting) stays
	// pending.
	for _, c := range calls {
		if !c.done && !r.life.Switching() {
			c.errText, c.class, c.done = neverRanText, policies.Structural, true
			r.notRunNode(ctx, c.nodeID, life.NeverRan, "")
		}
	}
	return final, stopErr
}

// neverRanText is what a call says that waited on calls that did not
// finish (an edit interrupted the step).
const neverRanText = "never ran: it waits on calls that did not finish"

// async runs work in a coroutine and then, on the pipeline's selector,
// next. Work that panicked (the run stops: guard.go) has no next: its
// call never ran.
func (p *pipeline) async(ctx workflow.Context, work func(workflow.Context), next func()) {
	fut, set := workflow.NewFuture(ctx)
	panicked := false
	p.r.guard.goGuarded(ctx, "a stage of a call", func(g workflow.Context) {
		work(g)
		set.Set(nil, nil)
	}, func() { panicked = true; set.Set(nil, nil) })
	p.running++
	p.sel.AddFuture(fut, func(workflow.Future) {
		p.running--
		if !panicked {
			next()
		}
	})
}

func depsDone(c *stepCall, calls []*stepCall) bool {
	for _, d := range c.deps {
		if !calls[d].done {
			return false
		}
	}
	return true
}

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

// heldCall is a call of a resumed step that was held for approval, or
// waited on such a call, when the run continued as new: it walks the
// pipeline again under its own node (so its call id stays the one people
// were shown). A call held for approval goes with the arguments it waited
// with (references resolved, repaired), keeping the State path it writes.
func (r *runner) heldCall(ctx workflow.Context, reqID string, tc activities.ToolCall, resume *editResume) *stepCall {
	if resume == nil || resume.Waiting == nil {
		return nil
	}
	n := edit.ValidCall(&r.run.Trace, reqID, tc.ID)
	if n == nil || (n.Status != signals.StatusAwaitingApproval && n.Status != signals.StatusPending) {
		return nil
	}
	if n.Status == signals.StatusAwaitingApproval && len(n.Args) > 0 {
		tc.Args = argsKeepingOutputPath(n.Args, tc.Args)
	}
	return newPipeline(ctx, r).prepareCall(ctx, n.ID, tc)
}

// heldCalls says whether a step has calls held for the next generation.
func heldCalls(calls []*stepCall) bool {
	for _, c := range calls {
		if c.held || !c.done {
			return true
		}
	}
	return false
}

// settleHandoffCall takes a step's handoff call once the step's other
// calls have finished (handoff.Handoffs.SettleCall): a second of one
// reply fails as a structural error.
func settleHandoffCall(ctx workflow.Context, h *handoff.Handoffs, c *stepCall) {
	c.done = true
	if why := h.SettleCall(ctx, c.nodeID, *c.handoff); why != "" {
		c.errText, c.class = why, policies.Structural
	}
}
