package workflows

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/chat"
	"github.com/unstuck-dev/unstuck/workflows/model"
)

// freeForm is the free-form shape: each step is a model request and what
// its reply asks for (runSteps, engine.go).
type freeForm struct{ r *runner }

// begin finishes the step a run an edit (or a wait) continued as new in:
// the edited request's calls, which count as the step they belong to.
func (f freeForm) begin(ctx workflow.Context) (bool, bool, *AgentResult, error) {
	r := f.r
	if r.run.Resume == nil {
		return false, false, nil, nil
	}
	done, result, err := f.resume(ctx)
	return false, err != nil || done, result, err
}

func (freeForm) graph() bool { return false }

// step hands over by the agent's rules, or takes one model request and its
// calls.
func (f freeForm) step(ctx workflow.Context) (bool, *AgentResult, error) {
	r := f.r
	if done, err := r.handoffByRule(ctx); done {
		return true, nil, err
	}
	done, result, err := r.step(ctx)
	return err != nil || done, result, err
}

// step is one model request and what follows from its reply: the calls
// it asked for, or its content as the output. done reports the run ended
// (with result, or with err for a stop).
func (r *runner) step(ctx workflow.Context) (done bool, result *AgentResult, err error) {
	reply, reqID, err := r.request(ctx)
	if errors.Is(err, chat.ErrCutIn) {
		return false, nil, nil // the message joins before the next request
	}
	if err != nil {
		return true, nil, err
	}
	if err := r.budget().Stopped(); err != nil {
		return true, nil, err // a person stopped the run while its reply streamed
	}
	if len(reply.ToolCalls) == 0 {
		if na, ok := r.model().NoAnswer(ctx, reply.Content, reply.Refusal, reply.FinishReason); ok {
			return r.answerNoAnswer(ctx, reqID, *reply, na)
		}
		return r.contentOutput(ctx, reqID, reply.Content, reply.FinishReason)
	}
	final, calls, err := r.runCalls(ctx, reqID, reply.ToolCalls)
	return r.afterCalls(ctx, reqID, final, calls, err)
}

// afterCalls ends a step once its calls are settled (settle): the
// output, a handoff, or the calls fed to the loop detector.
func (r *runner) afterCalls(ctx workflow.Context, reqID string, final *finalCall, calls []*stepCall, err error) (bool, *AgentResult, error) {
	end := stepEnd{waits: stepWaits{reqID: reqID, calls: calls}, stopErr: err}
	if final != nil {
		end.output = &stepOutput{parent: final.callID, value: final.output}
	} else {
		end.events = func() []stepEvent { return r.callEvents(calls) }
	}
	done, res, _, err := r.settle(ctx, end)
	return done, res, err
}

// callEvents are the step's calls, in the model's order, as events for
// the loop detector. Identical calls of one reply run side by side, not
// one after another, so each distinct call of a step is one event: eight
// equal calls in one reply are not a loop.
func (r *runner) callEvents(calls []*stepCall) []stepEvent {
	var events []stepEvent
	seen := map[string]bool{}
	for _, c := range calls {
		if c.final {
			continue
		}
		ev := r.event(c).LoopEvent()
		if seen[ev.Signature] {
			continue
		}
		seen[ev.Signature] = true
		events = append(events, stepEvent{nodeID: c.nodeID, event: ev})
	}
	return events
}

// request asks the model for its next reply. It passes only the messages
// added since the previous request; a failure that outlives the model's
// retry policy is recorded in the trace and status, then stops the run.
func (r *runner) request(ctx workflow.Context) (*activities.ModelReply, string, error) {
	run := r.run
	run.Step++
	r.showDetails(ctx)
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindRequest, Status: signals.StatusRunning, Parents: run.Frontier,
	}, Step: run.Step})
	reqID := node.ID
	ask := modelAsk{budget: r.model().PromptBudget(ctx)}
	r.model().Choose(ctx)
	for {
		spendTokens, replyTokens, err := r.budget().BeforeRequest(ctx, reqID, ask.maxTokens)
		if err != nil {
			return nil, reqID, r.notSent(ctx, reqID, err)
		}
		ask.spendTokens, ask.replyTokens = spendTokens, replyTokens
		reply, conv, err := r.askModel(ctx, reqID, ask)
		if errors.Is(err, errFellBack) {
			continue // asked again, of the next model
		}
		if reply == nil {
			return nil, reqID, err
		}
		if reply.OverBudget == nil && reply.OverSpend == nil {
			// Every reply answered is paid for, one asked again too; sent,
			// a wait carried for its budget is over.
			b := r.budget()
			b.SpendTokens(ctx, reqID, reply.InputTokens, reply.OutputTokens, reply.Estimated)
			b.Sent(ctx)
		}
		if reply.OverSpend != nil {
			// Not sent: a person raises the budget, or the run stops.
			if err := r.budget().OverPrompt(ctx, reqID, ask.maxTokens, *reply.OverSpend); err != nil {
				return nil, reqID, r.notSent(ctx, reqID, err)
			}
			continue
		}
		if reply.OverBudget != nil {
			// Not sent: the conversation is compacted and asked again.
			ask.budget = r.model().Compact(ctx, reqID, *reply.OverBudget)
			continue
		}
		if ask.maxTokens == 0 && r.model().CutOff(ctx, *reply) {
			if ask.maxTokens = r.model().LongerReply(ctx, reqID); ask.maxTokens > 0 {
				continue // asked again, with room for the whole call
			}
		}
		// The node shows what the model call took: the compactions of its
		// conversation, the longer reply it was asked again for.
		view := replyView(*reply)
		view.Compactions, view.LongerReply = r.model().Shown(reqID)
		r.finishNode(ctx, reqID, mustJSON(view), "")
		r.settleStreamed(ctx, r.streaming, reply.ToolCalls)
		if len(reply.ToolCalls) == 0 {
			r.endStream(ctx, r.streaming, "not run: the reply does not ask for it", "")
		}
		r.countTokens(ctx, *reply)
		run.SentMessages = len(conv) + 1
		run.LastReplyID = reply.ReplyID
		run.Replied(reqID)
		return reply, reqID, nil
	}
}

// notSent ends a request that waited at the budget rung and was not
// sent: an edit came first (the edit is applied next), or the run
// continues as new while it waits (the next generation asks again, and
// waits at the same budget node). Any other error is the run's stop.
func (r *runner) notSent(ctx workflow.Context, reqID string, err error) error {
	switch {
	case errors.Is(err, errInterrupted):
		r.finishNode(ctx, reqID, nil, "abandoned: "+r.interruptedWhile()+" at the budget rung")
	case errors.Is(err, errSwitching):
		r.finishNode(ctx, reqID, nil, "not sent: the run continued as new while it waited at the budget rung; the next generation asks again")
		return r.continueWaiting(ctx, stepWaits{})
	}
	return err
}

// modelAsk bounds a model request: budget is the prompt's token budget
// (policies.context), maxTokens the reply's bound when asked again with
// room, spendTokens and replyTokens the prompt's and the reply's bounds
// by the run's budget (workflows/budget). 0: no bound.
type modelAsk struct{ budget, maxTokens, spendTokens, replyTokens int }

// askModel sends the conversation to the model activity and answers its
// reply and the conversation it was sent. No reply: the request was
// abandoned for an edit, or failed, and err says how the run goes on.
func (r *runner) askModel(ctx workflow.Context, reqID string, ask modelAsk) (*activities.ModelReply, []activities.Message, error) {
	run := r.run
	run.undecoded = nil
	conv := buildConversation(run)
	if !run.Fitted && overBudget(conv, conversationBudget(run)) {
		// From now on the conversation is fitted to the payload limit;
		// what the model activity has cached is not what it will be sent.
		run.Fitted = true
		run.sendWhole()
		conv = buildConversation(run)
	}
	if err := r.stopUndecodable(ctx, run.undecoded); err != nil {
		r.finishNode(ctx, reqID, nil, "not sent: "+run.undecoded.Error())
		return nil, nil, err
	}
	req := activities.ModelRequest{
		Agent:        run.Spec.Agent.Name,
		Base:         run.SentMessages,
		AfterReply:   run.LastReplyID,
		Delta:        conv[min(run.SentMessages, len(conv)):],
		PromptBudget: ask.budget,
		Fallback:     run.ModelAt,
		MaxTokens:    cmp.Or(ask.maxTokens, ask.replyTokens),
		SpendTokens:  ask.spendTokens,
	}
	if run.SentMessages > len(conv) {
		// Cannot happen unless the conversation shrank; send it whole.
		req.Base, req.AfterReply, req.Delta = 0, "", conv
	}
	if req.Base == 0 {
		req.Tools = toolDefs(run)
	}
	// Temporal refuses activity inputs over 2 MB by failing the workflow
	// task; stop cleanly with a report instead.
	if size := len(mustJSON(req)); size > maxRequestBytes {
		msg := fmt.Sprintf("the next model request would carry %d KiB of new messages, over the %d KiB an activity input may hold", size>>10, maxRequestBytes>>10)
		r.finishNode(ctx, reqID, nil, msg)
		run.LastError = msg
		return nil, nil, r.stop(ctx, msg)
	}
	// Set after the size check, which weighs the request as runs recorded
	// before it had a node weighed it.
	req.Node = reqID
	r.edit().Checkpoint(reqID)
	opts := modelOptions(run.Spec.Model)
	var stream *streaming
	if r.model().Streams(ctx) {
		req.StreamTo = reqID
		opts.HeartbeatTimeout = model.HeartbeatTimeout
		stream = &streaming{reqID: reqID, p: r.newPipeline(ctx), open: true}
	} else {
		opts = r.model().WithHeartbeat(ctx, opts)
	}
	r.streaming = stream
	var reply activities.ModelReply
	actx, abandon := workflow.WithCancel(workflow.WithActivityOptions(ctx, withSummary(opts, modelSummary(run.Step))))
	fut := workflow.ExecuteActivity(actx, acts.CallModel, req)
	var ready bool
	if stream != nil {
		ready = r.awaitStreamed(ctx, fut, stream)
	} else {
		ready = r.awaitOrInterrupt(ctx, fut)
	}
	if !ready {
		// An edit came first: the reply would answer a conversation the
		// edit changes, so it is not waited for (and the request is
		// cancelled, so it spends no more tokens).
		abandon()
		if !r.life.Interrupting() {
			return nil, nil, r.chat().CutIn(ctx, reqID)
		}
		r.finishNode(ctx, reqID, nil, "abandoned: a person edited the run while the model was asked")
		r.endStream(ctx, stream, notRunText(r.life.Stops()), r.life.Stops())
		return nil, nil, errInterrupted
	}
	if err := fut.Get(ctx, &reply); err != nil {
		if cancelled(ctx, err) {
			return nil, nil, r.cancelled(ctx, reqID)
		}
		if r.model().FallBack(ctx, reqID, err) {
			r.endStream(ctx, stream, "not run: the model request is asked again of a fallback model", "")
			return nil, nil, errFellBack
		}
		msg := errorText(err)
		r.finishNode(ctx, reqID, nil, msg)
		r.endStream(ctx, stream, "not run: the model request it came from failed", "")
		run.LastError = msg
		return nil, nil, r.stop(ctx, "model request failed: "+msg)
	}
	return &reply, conv, nil
}

// maxRequestBytes keeps a model request under Temporal's 2 MB payload limit.
const maxRequestBytes = config.MaxPayloadBytes

// replyRecord is what a request node shows of the reply: package model's
// record, as a type of its own here, because the error of one that does
// not decode names the type (workflows.replyRecord), and stop reports and
// refusals say it.
type replyRecord model.Record

func replyView(r activities.ModelReply) replyRecord {
	return replyRecord{Content: r.Content, ToolCalls: r.ToolCalls, FinishReason: r.FinishReason, Refusal: r.Refusal}
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
