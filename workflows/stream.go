package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// Streamed calls (an agent's stream_calls). While the model activity
// streams a reply, it sends the run each call the model has finished
// writing (signals.StreamedCall, keyed by the request node and the call's
// index). The run takes them in order, gives each a node, checks it as any
// call is checked, and starts at once, on the step's pipeline, every call
// that waits on nothing: one that reads no reference (a later call of the
// same reply could write what it reads), is not final_output or handoff
// (they wait for the step's other calls) and is within calls_per_reply.
// The rest start when the reply ends.
//
// The activity's result, the whole reply, stays the source of truth: a call
// taken early that the reply asks for in the same way (tool and arguments
// at the same index) is that call of the step and never runs again; one the reply does not ask
// for (a retried attempt that streamed differently) is settled by the
// reply: it keeps its node, with a note, and its result is not given to the
// model, and the reply's own call runs in its place.

// streaming is the step's model request while its reply streams.
type streaming struct {
	reqID string
	p     *pipeline
	// calls are the calls taken so far, in the reply's order.
	calls []*streamedCall
	// open: the reply has not arrived; calls sent after it are not taken.
	open bool
}

// streamedCall is a call taken while its reply streamed.
type streamedCall struct {
	call activities.ToolCall
	step *stepCall
}

// awaitStreamed waits for the reply of a request that streams its calls,
// taking and starting the calls sent meanwhile, or for an edit to
// interrupt the wait; it answers whether the reply is in. The calls it
// started go on after it returns, on s.p.
func (q requests) awaitStreamed(ctx workflow.Context, fut workflow.Future, s *streaming) bool {
	r := q.r
	replied := false
	wake, wakeUp := workflow.NewFuture(ctx)
	r.guard.goGuarded(ctx, "the wait of a streamed reply", func(g workflow.Context) {
		// A selector cannot wait on a condition: this turns an edit (or
		// a cancellation) into a future it can wait on.
		_ = workflow.Await(g, func() bool { return replied || r.life.Interrupting() || g.Err() != nil })
		wakeUp.Set(nil, nil)
	}, func() { wakeUp.Set(nil, nil) })
	s.p.sel.AddFuture(fut, func(workflow.Future) { replied = true })
	s.p.sel.AddFuture(wake, func(workflow.Future) {})
	s.p.sel.AddReceive(workflow.GetSignalChannel(ctx, signals.StreamedCall), func(c workflow.ReceiveChannel, _ bool) {
		var raw converter.RawValue
		c.Receive(ctx, &raw)
		q.takeStreamed(ctx, s, raw)
	})
	for !replied && !r.life.Interrupting() && ctx.Err() == nil {
		s.p.sel.Select(ctx)
	}
	s.open = false
	return fut.IsReady() || ctx.Err() != nil
}

// takeStreamed takes one streamed call: the next of the request in
// flight, with a well-formed call. Anything else (a call an earlier
// attempt already sent, a late call of an earlier request, a malformed
// message) is passed over; the reply settles what runs.
func (q requests) takeStreamed(ctx workflow.Context, s *streaming, raw converter.RawValue) {
	r := q.r
	sc, err := decodeStreamedCall(raw)
	if err != nil {
		workflow.GetLogger(ctx).Warn("passed over a streamed call", "error", err.Error())
		return
	}
	if !s.open || sc.Request != s.reqID || sc.Index != len(s.calls) {
		return // not the next call of the request in flight
	}
	if sc.Index >= r.run.Spec.Agent.Policies.Limits.PerReply() {
		return // past calls_per_reply: the reply answers it without running it
	}
	if sc.Call.ID == "" || sc.Call.Name == "" {
		return
	}
	if _, problem := parseArgs(sc.Call.Args); problem != "" {
		return
	}
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindCall, Status: signals.StatusPending, Parents: []string{s.reqID},
		Tool: sc.Call.Name, Args: rawOrString(sc.Call.Args), Streamed: true,
	}, ModelCallID: sc.Call.ID, Step: r.run.Step})
	c := s.p.prepareCall(ctx, node.ID, sc.Call)
	s.calls = append(s.calls, &streamedCall{call: sc.Call, step: c})
	if c.done || c.final || c.handoff != nil || len(c.reads) > 0 {
		return // settled already, or starts when the reply ends
	}
	c.started = true
	s.p.resolve(ctx, c)
}

// decodeStreamedCall reads a streamed call's payload, bounded in size.
func decodeStreamedCall(raw converter.RawValue) (activities.StreamedCall, error) {
	var sc activities.StreamedCall
	payload, err := decodeSignal(signals.StreamedCall, raw)
	if err != nil {
		return sc, err
	}
	if err := json.Unmarshal(payload, &sc); err != nil {
		return sc, fmt.Errorf("%s: %v", signals.StreamedCall, err)
	}
	return sc, nil
}

// streamedFor is the call taken early at index i of the reply, if the
// reply asks for it in the same way.
func (s *streaming) streamedFor(i int, tc activities.ToolCall) *stepCall {
	if s == nil || i >= len(s.calls) || !sameCall(s.calls[i].call, tc) {
		return nil
	}
	return s.calls[i].step
}

// sameCall: the same tool with the same arguments. The id is not
// compared: a provider gives a call a new id in every response, so the
// attempt that streamed a call and the one whose reply is recorded may
// name the same call differently (the reply's id is the one answered).
func sameCall(a, b activities.ToolCall) bool {
	return a.Name == b.Name && a.Args == b.Args
}

// settleStreamed notes, on the node of each call taken early that the
// reply does not ask for, that the reply settled it: its result is not
// given to the model (it still runs to its end if it started: what it
// did is recorded).
func (q requests) settleStreamed(ctx workflow.Context, s *streaming, reply []activities.ToolCall) {
	r := q.r
	if s == nil {
		return
	}
	for i, early := range s.calls {
		if i < len(reply) && sameCall(early.call, reply[i]) {
			if n := r.run.node(early.step.nodeID); n != nil {
				n.ModelCallID = reply[i].ID // the id the model will read the answer under
			}
			continue
		}
		n := r.run.node(early.step.nodeID)
		if n == nil {
			continue
		}
		asked := "no call"
		if i < len(reply) {
			asked = fmt.Sprintf("%s(%s)", reply[i].Name, shortText(reply[i].Args, 200))
		}
		n.Superseded = true
		n.Note = fmt.Sprintf("taken while the reply streamed, but the reply asks for %s at index %d: the reply settles it, and this call's result is not given to the model", asked, i)
		if !early.step.started {
			q.notRunStreamed(ctx, early.step, "not run: the reply does not ask for it", "")
		}
	}
}

// notRunStreamed settles a call taken while its reply streamed that will
// not start: why in the trace's words, and the run's life's reason when
// it stopped it (reason; "" when the step did).
func (q requests) notRunStreamed(ctx workflow.Context, c *stepCall, why string, reason life.NotRun) {
	r := q.r
	if c.started || c.done {
		return
	}
	c.started, c.done = true, true
	c.errText, c.class = why, policies.Structural
	r.finishNode(ctx, c.nodeID, nil, why)
	r.run.noteNotRun(c.nodeID, reason)
}

// drainStreamed takes the streamed calls still buffered before the run
// continues as new: they belong to requests that are over.
func drainStreamed(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, signals.StreamedCall)
	for {
		var raw converter.RawValue
		if !ch.ReceiveAsync(&raw) {
			return
		}
	}
}

// streamOf takes the streaming state of request reqID, if it streamed.
func (q requests) streamOf(reqID string) *streaming {
	r := q.r
	s := r.streaming
	if s == nil || s.reqID != reqID {
		return nil
	}
	r.streaming = nil
	return s
}

// endStream waits for the calls a request started while its reply
// streamed, when the reply runs none of them (it has no calls, failed, or
// an edit abandoned it): what they did is recorded before the run goes on.
func (q requests) endStream(ctx workflow.Context, s *streaming, why string, reason life.NotRun) {
	r := q.r
	if s == nil || r.streaming != s {
		return
	}
	r.streaming = nil
	calls := make([]*stepCall, 0, len(s.calls))
	for _, c := range s.calls {
		q.notRunStreamed(ctx, c.step, why, reason)
		calls = append(calls, c.step)
	}
	_, _ = s.p.drive(ctx, calls)
}
