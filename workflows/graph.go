package workflows

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/chat"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// visitResult is what a graph node visit did: ok and error feed the edge
// conditions; event feeds the loop detector.
type visitResult struct {
	ok      bool
	errText string
	event   policies.LoopEvent
	done    bool // an end node: the run is complete
	output  json.RawMessage
	stopErr error
	// waits: what the visit left waiting for people, carried into the
	// next generation when the run continues as new while waiting.
	waits stepWaits
	// again: the node is visited again (an llm node's reply answered
	// nothing), not left by an edge.
	again bool
	// rung: the ladder's human rung, carried into this generation, that
	// answered the loop of the visit (rung_human.go).
	rung *escalation
	// cutIn: a conversation's message cut the llm node's request short
	// (turn.go); the walk goes on from where the message leaves it.
	cutIn bool
}

// graphShape is the graph shape: each step visits the current node, feeds
// the loop detector, then takes the first edge whose condition holds
// (runSteps, engine.go). Model requests and node visits both count
// against max_steps.
type graphShape struct {
	r *runner
	// resume: the first visit takes up the one the run continued as new
	// in (resumeVisit).
	resume bool
}

func (*graphShape) graph() bool { return true }

// begin places the walk: at the start node, at the node the run continued
// as new in, or, after a rollback, at the node the resume point's edge
// leads to.
func (g *graphShape) begin(ctx workflow.Context) (bool, taken) {
	r := g.r
	if r.run.GraphAt == "" {
		r.run.GraphAt = r.run.Spec.Agent.Graph.Start
	}
	// After an edit of an llm node's step, that step is finished first.
	g.resume = r.run.Resume != nil
	if rp := r.run.ResumeFrom; rp != nil {
		r.run.ResumeFrom = nil
		next, err := g.nextNode(ctx, rp.Node, visitResult{ok: rp.OK, errText: rp.Error})
		if err != nil {
			return false, ended(true, nil, r.stop(ctx, "after the rollback: "+err.Error()))
		}
		r.run.GraphAt = next
	}
	return g.resume, taken{}
}

// step visits the current node, for the engine to settle.
func (g *graphShape) step(ctx workflow.Context) taken {
	r := g.r
	at := r.run.GraphAt
	n := r.run.Spec.Agent.Graph.Nodes[at]
	var res visitResult
	if g.resume {
		g.resume = false
		res = g.resumeVisit(ctx, at, n)
	} else {
		res = g.visit(ctx, at, n)
	}
	if res.cutIn {
		return taken{}
	}
	end := &stepEnd{waits: res.waits, stopErr: res.stopErr, rung: res.rung,
		visit: &resumePoint{Node: at, OK: res.ok, Error: res.errText, Again: res.again}}
	if res.done {
		end.output = &stepOutput{parent: r.run.Frontier[0], value: res.output, graphNode: at}
	} else {
		end.events = func() []stepEvent {
			return []stepEvent{{where: at, nodeID: r.run.Frontier[len(r.run.Frontier)-1], event: res.event}}
		}
	}
	return taken{end: end}
}

// after chooses where the walk goes once the visit is settled: a rung's
// exit, the same node again, or the first edge whose condition holds.
func (g *graphShape) after(ctx workflow.Context, e stepEnd, esc *escalation) (bool, *AgentResult, error) {
	r := g.r
	v := e.visit
	switch {
	case e.output != nil:
		return false, nil, nil // a conversation's turn ended: the next walks from the start (turn.go)
	case esc != nil && esc.goTo != "":
		r.run.GraphAt = esc.goTo
		return false, nil, nil
	case v.Again:
		return false, nil, nil
	}
	next, err := g.nextNode(ctx, v.Node, visitResult{ok: v.OK, errText: v.Error})
	if err != nil {
		return true, nil, r.stop(ctx, err.Error())
	}
	r.run.GraphAt = next
	return false, nil, nil
}

// visit executes one graph node, counting the visit (and its step).
func (g *graphShape) visit(ctx workflow.Context, at string, n config.GraphNode) visitResult {
	r := g.r
	if !n.LLM { // an llm node's step is its model request
		r.run.Step++
	}
	r.run.Visits[at]++
	return g.visitNode(ctx, at, n)
}

// resumeVisit finishes the visit of node at that the run continued as
// new in: an llm node's step an edit continued (resumeLLM), or a wait the
// run carried into this generation (package waiting), which goes on
// in the same visit: a tool node's call held for approval walks the
// pipeline again under its own node, a human node waits at the same
// node, an llm node at its budget rung asks again.
func (g *graphShape) resumeVisit(ctx workflow.Context, at string, n config.GraphNode) visitResult {
	r := g.r
	res := r.run.Resume
	if res.Request != "" || res.Waiting == nil {
		return g.resumeLLM(ctx, at)
	}
	r.run.Resume = nil
	if rung := res.Waiting.Rung; rung != nil && rung.Visit != nil {
		v := rung.Visit
		return visitResult{ok: v.OK, errText: v.Error, again: v.Again, rung: heldRung(r, res.Waiting).wait(ctx, "")}
	}
	if c := g.heldToolCall(res.Waiting, at, n); c != nil {
		return g.runToolNode(ctx, c)
	}
	return g.visitNode(ctx, at, n) // a human node waits at its held node (expectCarriedWaits)
}

// visitNode does what node at is for.
func (g *graphShape) visitNode(ctx workflow.Context, at string, n config.GraphNode) visitResult {
	r := g.r
	switch {
	case n.End:
		return g.visitEnd(ctx, at, n)
	case n.Tool != "":
		return g.visitTool(ctx, at, n)
	case n.LLM:
		return g.visitLLM(ctx, at)
	case n.Human:
		return g.visitHuman(ctx, at, n)
	}
	return visitResult{stopErr: r.stop(ctx, fmt.Sprintf("graph node %q has no kind", at))}
}

// visitHuman waits at human node at for a person's reply, as its
// approval block asks (reply_asks.go): a condition that is false passes
// the node on unasked, a completed human node noting it; a deadline that
// approves passes it on too.
func (g *graphShape) visitHuman(ctx workflow.Context, at string, n config.GraphNode) visitResult {
	r := g.r
	d := replyAsk{r: r, a: n.Approval}.decide(ctx)
	if !d.Ask {
		node := r.addNode(ctx, Node{Node: signals.Node{
			Kind: signals.KindHuman, Status: signals.StatusCompleted, Parents: r.run.Frontier, GraphNode: at, Note: d.Note,
		}, Step: r.run.Step})
		r.run.Visited(node.ID)
		return visitResult{ok: true, event: policies.HumanNodeEvent(at, true)}
	}
	got, err := r.person().AwaitReply(ctx, person.Ask{Why: withNote("graph node "+at, d.Note), GraphNode: at, Approval: n.Approval})
	r.run.tagGraphNode(got.Node, at)
	switch {
	case errors.Is(err, errSwitching):
		return visitResult{waits: stepWaits{human: got.Node}}
	case err != nil:
		return visitResult{stopErr: err}
	case got.TimedOut:
		return visitResult{ok: false, errText: "no reply", event: policies.HumanNodeEvent(at, false)}
	}
	if got.Reply != nil && len(got.Reply.Output) > 0 {
		r.run.State["human"] = r.stateValue(decodeOrString(got.Reply.Output))
	}
	return visitResult{ok: true, event: policies.HumanNodeEvent(at, true)}
}

// visitTool runs a tool node: a call with its arguments from the node,
// through the same pipeline as a model's call (references, schema and
// repair, blocking, approval, breaker and fallback, the tool, settling).
func (g *graphShape) visitTool(ctx workflow.Context, at string, n config.GraphNode) visitResult {
	r := g.r
	tool, ok := r.run.Spec.Tool(n.Tool)
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindCall, Status: signals.StatusRunning, Parents: r.run.Frontier, Tool: n.Tool, GraphNode: at,
	}, Step: r.run.Step})
	id := node.ID
	r.run.Visited(id)
	r.edit().Checkpoint(id)
	if !ok {
		r.finishNode(ctx, id, nil, unknownTool(n.Tool, toolNames(r.run.Spec)))
		return visitResult{errText: "unknown tool", event: policies.UnknownToolEvent(at)}
	}
	var args any = map[string]any{}
	if n.Args != nil {
		args = n.Args
	}
	return g.runToolNode(ctx, toolNodeCall(id, at, tool, n, args))
}

// toolNodeCall is the call a tool node makes, under node id, with args.
func toolNodeCall(id, at string, tool config.Tool, n config.GraphNode, args any) *stepCall {
	c := &stepCall{nodeID: id, name: tool.Name, tool: tool, where: at, args: args}
	if n.OutputPath != "" {
		if p, err := refs.ParseOutputPath(n.OutputPath); err == nil {
			c.write = &p
		}
	}
	return c
}

// runToolNode walks a tool node's call through the pipeline.
func (g *graphShape) runToolNode(ctx workflow.Context, c *stepCall) visitResult {
	r := g.r
	_, _ = newPipeline(ctx, r).drive(ctx, []*stepCall{c}) // a tool node is never final_output
	return visitResult{ok: c.errText == "", errText: c.errText, event: g.callEvent(c).LoopEvent(), waits: stepWaits{calls: []*stepCall{c}}}
}

// callEvent is a tool node's settled call as the loop detector sees it:
// keyed by the node and its resolved arguments, as graph calls always
// were; recorded histories depend on it.
func (g *graphShape) callEvent(c *stepCall) policies.CallEvent {
	return policies.CallEvent{Where: c.where, Tool: c.tool.Name, Args: c.resolved, Outcome: c.outcome(), Volatile: g.r.volatile(c.tool.Name)}
}

// heldToolCall is the call of tool node at that was held for approval,
// or waited out an outage (pending), when the run continued as new while
// waiting (nil when none): it waits again under its own node (so its call id stays the one people were
// shown), with the arguments it waited with (references resolved,
// repaired).
func (g *graphShape) heldToolCall(w *waitingResume, at string, n config.GraphNode) *stepCall {
	r := g.r
	tool, ok := r.run.Spec.Tool(n.Tool)
	if !ok {
		return nil
	}
	for _, id := range sortedIDs(w.Since) {
		node := r.run.node(id)
		if node == nil || node.Kind != signals.KindCall || node.GraphNode != at || (node.Status != signals.StatusAwaitingApproval && node.Status != signals.StatusPending) {
			continue
		}
		args, err := decodeJSON(node.Args)
		if err != nil {
			return nil
		}
		return toolNodeCall(node.ID, at, tool, n, args)
	}
	return nil
}

// visitLLM is one model request and its calls, inside a graph.
func (g *graphShape) visitLLM(ctx workflow.Context, at string) visitResult {
	r := g.r
	reply, reqID, err := r.requests().request(ctx)
	r.run.tagGraphNode(reqID, at)
	if errors.Is(err, chat.ErrCutIn) {
		return visitResult{cutIn: true}
	}
	if err != nil {
		return visitResult{stopErr: err}
	}
	return g.llmOutcome(ctx, at, reqID, replyView(*reply), nil)
}

// resumeLLM finishes the step of an llm node an edit continued the run
// in: the edited reply's calls that the edit did not keep run.
func (g *graphShape) resumeLLM(ctx workflow.Context, at string) visitResult {
	r := g.r
	res := r.run.Resume
	r.run.Resume = nil
	req := r.run.node(res.Request)
	if req == nil {
		return visitResult{stopErr: r.stop(ctx, "the edited request "+res.Request+" is not in the trace")}
	}
	var rec replyRecord
	if err := r.stopUndecodable(ctx, decodeRecorded(req, "the edited model reply", req.Output, &rec)); err != nil {
		return visitResult{stopErr: err}
	}
	return g.llmOutcome(ctx, at, req.ID, rec, res)
}

// llmOutcome runs an llm node's calls (all of them, or after an edit
// those not kept) and says how the visit ended.
func (g *graphShape) llmOutcome(ctx workflow.Context, at, reqID string, reply replyRecord, resume *editResume) visitResult {
	r := g.r
	// The node's identity in loops is what the model asked for, so an llm
	// node visited again with new calls is progress, not a cycle.
	calls := string(mustJSON(reply.ToolCalls))
	if len(reply.ToolCalls) == 0 {
		if resume == nil {
			// A visit an edit resumed is not asked.
			if na, ok := r.model().GraphNoAnswer(ctx, reply.Content, reply.Refusal, reply.FinishReason); ok {
				id := r.outputs().recordNoAnswer(ctx, reqID, reply.Content, reply.Refusal, na)
				r.run.tagGraphNode(id, at)
				return visitResult{again: true, errText: na.Told, event: na.At(at)}
			}
		}
		return visitResult{ok: true, event: policies.LLMNodeEvent(at, calls, reply.Content, "content")}
	}
	final, stepCalls, err := replyPipeline(ctx, r, reqID).runCalls(ctx, reqID, reply.ToolCalls, resume)
	waits := stepWaits{reqID: reqID, calls: stepCalls}
	if err != nil {
		return visitResult{stopErr: err, waits: waits}
	}
	if final != nil {
		return visitResult{done: true, output: final.output, waits: waits}
	}
	failed := ""
	for _, id := range r.run.Frontier {
		if n := r.run.node(id); n != nil && n.Status == signals.StatusFailed {
			failed = n.Error
		}
	}
	outcome := boolText(failed == "")
	if failed == "" && changedNothing(stepCalls) {
		outcome = string(policies.NoOp)
	}
	return visitResult{ok: failed == "", errText: failed, event: g.llmNodeEvent(ctx, at, calls, reply, outcome), waits: waits}
}

// llmNodeEvent is the loop event of an llm node's visit whose reply asked
// for calls: since stable-signatures, what the calls were without their
// ids and volatile fields; before, their JSON with the provider's ids,
// which no two replies share (so such a node never looked like a loop).
func (g *graphShape) llmNodeEvent(ctx workflow.Context, at, callsJSON string, reply replyRecord, outcome string) policies.LoopEvent {
	r := g.r
	if versionOf(ctx, versionStableSignatures, 1) == workflow.DefaultVersion {
		return policies.LLMNodeEvent(at, callsJSON, reply.Content, outcome)
	}
	calls := make([]policies.LLMCall, len(reply.ToolCalls))
	for i, c := range reply.ToolCalls {
		calls[i] = policies.LLMCall{Tool: c.Name, Args: []byte(c.Args), Volatile: r.volatile(c.Name)}
	}
	return policies.StableLLMNodeEvent(at, calls, reply.Content, outcome)
}

// visitEnd completes the run with the end node's output: a reference, or
// the whole State.
func (g *graphShape) visitEnd(ctx workflow.Context, at string, n config.GraphNode) visitResult {
	r := g.r
	var out any = r.run.State
	if n.Output != "" {
		resolved, problem := r.run.resolveArgs(map[string]any{"output": n.Output})
		if problem != "" {
			return visitResult{stopErr: r.stop(ctx, fmt.Sprintf("end node %s: %s", at, problem))}
		}
		var m struct {
			Output json.RawMessage `json:"output"` // as resolved: numbers keep their text
		}
		// resolved is resolveArgs' own encoding of an object: it decodes.
		_ = json.Unmarshal(resolved, &m)
		out = m.Output
	}
	output := mustJSON(out)
	if len(output) > config.MaxPayloadBytes {
		return visitResult{stopErr: r.stop(ctx, fmt.Sprintf("end node %s: %s", at, config.OverPayload("the output is", len(output))))}
	}
	return visitResult{done: true, output: output}
}

// nextNode takes the first outgoing edge whose condition holds (an edge
// without one always holds), skipping edges a rollback excluded; after
// explore, until real progress, an edge away from the struggle's loops
// first (ladder.Escape.AwayFrom).
func (g *graphShape) nextNode(ctx workflow.Context, at string, res visitResult) (string, error) {
	r := g.r
	holds := g.edgeHolds(ctx, config.WhenEnv{OK: res.ok, Error: res.errText, State: r.run.State, Input: r.inputMap(), Visits: r.run.Visits})
	next, err := policies.NextEdge(at, r.run.Spec.Agent.Graph.Edges, r.run.ExcludedEdges, res.ok, res.errText, holds)
	if away, ok := r.escape().AwayFrom(ctx, at, next, err, holds); ok {
		return away, nil
	}
	return next, err
}

// edgeHolds evaluates an edge's condition in env (the visit's outcome,
// State, input and visits); a run error names the condition.
func (g *graphShape) edgeHolds(ctx workflow.Context, env config.WhenEnv) func(i int, e config.GraphEdge) (bool, error) {
	r := g.r
	return func(i int, e config.GraphEdge) (bool, error) {
		o := r.exprs.evaluateGated(ctx, true, e.When, env, nil)
		if o.compileErr != nil {
			return false, o.compileErr
		}
		if o.runErr != nil {
			return false, fmt.Errorf("condition %q: %v", e.When, o.runErr)
		}
		return o.held, nil
	}
}

// tagGraphNode marks node id as one of graph node at.
func (run *Run) tagGraphNode(id, at string) {
	if n := run.node(id); n != nil {
		n.GraphNode = at
	}
}

func decodeOrString(raw json.RawMessage) any {
	v, err := decodeJSON(raw)
	if err != nil {
		return string(raw)
	}
	return v
}

func boolText(b bool) string {
	if b {
		return "ok"
	}
	return "failed"
}

// changedNothing: every call of an llm node's visit was a write that
// answered as its previous try did (repeatsItself), so the visit made no
// progress, as those calls in a free-form step make none. Only writes
// past the no-op-writes gate are ever so.
func changedNothing(calls []*stepCall) bool {
	for _, c := range calls {
		if !c.final && !c.noOp {
			return false
		}
	}
	return len(calls) > 0
}
