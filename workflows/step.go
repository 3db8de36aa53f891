package workflows

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/workflows/chat"
)

// freeForm is the free-form shape: each step is a model request and what
// its reply asks for (runSteps, engine.go).
type freeForm struct{ r *runner }

// begin finishes the step a run an edit (or a wait) continued as new in:
// the edited request's calls, which count as the step they belong to.
func (f freeForm) begin(ctx workflow.Context) (bool, taken) {
	r := f.r
	if r.run.Resume == nil {
		return false, taken{}
	}
	done, result, err := f.resume(ctx)
	return false, ended(err != nil || done, result, err)
}

func (freeForm) graph() bool { return false }

// step hands over by the agent's rules, or takes one model request and its
// calls.
func (f freeForm) step(ctx workflow.Context) taken {
	r := f.r
	if done, err := r.handoffs().ByRule(ctx); done {
		return ended(true, nil, err)
	}
	return f.ask(ctx)
}

// after: the free-form loop's next step is the model's to choose.
func (freeForm) after(workflow.Context, stepEnd, *escalation) (bool, *AgentResult, error) {
	return false, nil, nil
}

// ask is one model request and what follows from its reply: the calls
// it asked for, for the engine to settle, or its content as the output.
func (f freeForm) ask(ctx workflow.Context) taken {
	r := f.r
	reply, reqID, err := r.requests().request(ctx)
	if errors.Is(err, chat.ErrCutIn) {
		return taken{} // the message joins before the next request
	}
	if err != nil {
		return ended(true, nil, err)
	}
	if err := r.budget().Stopped(); err != nil {
		return ended(true, nil, err) // a person stopped the run while its reply streamed
	}
	if len(reply.ToolCalls) == 0 {
		bare := &bareReply{reqID: reqID, reply: *reply}
		if na, ok := r.model().NoAnswer(ctx, reply.Content, reply.Refusal, reply.FinishReason); ok {
			bare.noAnswer = &na
		}
		return taken{end: &stepEnd{bare: bare}}
	}
	final, calls, err := replyPipeline(ctx, r, reqID).runCalls(ctx, reqID, reply.ToolCalls, nil)
	return taken{end: f.callsEnd(reqID, final, calls, err)}
}

// callsEnd is how a step ended once its calls are settled: the output, a
// handoff, or the calls fed to the loop detector (settle).
func (f freeForm) callsEnd(reqID string, final *finalCall, calls []*stepCall, err error) *stepEnd {
	end := &stepEnd{waits: stepWaits{reqID: reqID, calls: calls}, stopErr: err}
	if final != nil {
		end.output = &stepOutput{parent: final.callID, value: final.output}
	} else {
		end.events = func() []stepEvent { return f.callEvents(calls) }
	}
	return end
}

// afterCalls settles a step resumed after an edit (edit_resume.go) once
// its calls are settled.
func (f freeForm) afterCalls(ctx workflow.Context, reqID string, final *finalCall, calls []*stepCall, err error) (bool, *AgentResult, error) {
	done, res, _, err := f.r.engine().settle(ctx, *f.callsEnd(reqID, final, calls, err))
	return done, res, err
}

// callEvents are the step's calls, in the model's order, as events for
// the loop detector. Identical calls of one reply run side by side, not
// one after another, so each distinct call of a step is one event: eight
// equal calls in one reply are not a loop.
func (f freeForm) callEvents(calls []*stepCall) []stepEvent {
	var events []stepEvent
	seen := map[string]bool{}
	for _, c := range calls {
		if c.final {
			continue
		}
		ev := f.callEvent(c).LoopEvent()
		if seen[ev.Signature] {
			continue
		}
		seen[ev.Signature] = true
		events = append(events, stepEvent{nodeID: c.nodeID, event: ev})
	}
	return events
}

// callEvent is a settled call as the loop detector sees it: keyed by its
// node's arguments (the model's own text when the call never ran), as
// free-form calls always were; recorded histories depend on it.
func (f freeForm) callEvent(c *stepCall) policies.CallEvent {
	var args json.RawMessage
	if n := f.r.run.node(c.nodeID); n != nil {
		args = n.Args
	}
	return policies.CallEvent{Tool: c.name, Args: args, Outcome: c.outcome(), Volatile: f.r.volatile(c.name)}
}

// describeCall is the "call" of an error message to the model. Large
// arguments are not repeated (the model's own reply holds them), so the
// error is never lost behind them.
func describeCall(nodeID, tool string, args []byte) map[string]any {
	shown := rawOrString(string(args))
	if len(args) > maxArgsInError {
		shown = mustJSON(fmt.Sprintf("(%d bytes of arguments, not repeated here)", len(args)))
	}
	return map[string]any{"id": nodeID, "tool": tool, "args": shown}
}

// maxArgsInError bounds the arguments an error message repeats.
const maxArgsInError = 4 << 10

// errorEnvelope is the {"call": ..., "error": ...} message the model gets
// for a call that failed, before or after running.
func errorEnvelope(n *Node) string {
	env := map[string]any{"call": describeCall(n.ID, n.AskedTool(), n.Args), "error": n.Error}
	switch {
	case n.Check != nil && n.Check.Unknown:
		// A call whose outcome could not be checked: neither failed nor
		// done, and what the tool answered, if it ran.
		env["class"] = policies.OutcomeUnknown
		if len(n.Output) > 0 {
			env["result"] = json.RawMessage(n.Output)
		}
	case n.Check != nil && len(n.Output) > 0:
		// A call that failed its check: what the tool claimed, beside why
		// it is not believed.
		env["class"], env["result"] = policies.Unverified, json.RawMessage(n.Output)
	}
	return string(mustJSON(env))
}

// unknownTool names the tools the agent does have, so the model can fix it.
func unknownTool(name string, known []string) string {
	return fmt.Sprintf("unknown tool %q: this agent's tools are %v", name, known)
}
