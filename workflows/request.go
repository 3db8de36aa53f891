package workflows

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
	"go.temporal.io/sdk/workflow"
)

// The run's model requests, in both shapes: each asked with its budget
// (workflows/budget), of the model package model chooses (fallback,
// compaction, longer replies), its reply's calls taken while it streams
// (stream.go).

// requests asks the model for the run's replies. Made for each use, over
// the runner it is called on; the request under way is the runner's
// (streaming).
type requests struct{ r *runner }

func (r *runner) requests() requests { return requests{r} }

// request asks the model for its next reply. It passes only the messages
// added since the previous request; a failure that outlives the model's
// retry policy is recorded in the trace and status, then stops the run.
func (q requests) request(ctx workflow.Context) (*activities.ModelReply, string, error) {
	r := q.r
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
			return nil, reqID, q.notSent(ctx, reqID, err)
		}
		ask.spendTokens, ask.replyTokens = spendTokens, replyTokens
		reply, conv, err := q.askModel(ctx, reqID, ask)
		if errors.Is(err, errFellBack) {
			continue // asked again, of the next model
		}
		if reply == nil {
			return nil, reqID, err
		}
		run.Outages.End(r.modelOutageOf()) // the model answered: an outage waited out is over
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
				return nil, reqID, q.notSent(ctx, reqID, err)
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
		q.settleStreamed(ctx, r.streaming, reply.ToolCalls)
		if len(reply.ToolCalls) == 0 {
			q.endStream(ctx, r.streaming, "not run: the reply does not ask for it", "")
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
func (q requests) notSent(ctx workflow.Context, reqID string, err error) error {
	r := q.r
	switch {
	case errors.Is(err, errInterrupted):
		r.finishNode(ctx, reqID, nil, "abandoned: "+r.waiting().InterruptedWhile()+" at the budget rung")
	case errors.Is(err, errSwitching):
		r.finishNode(ctx, reqID, nil, "not sent: the run continued as new while it waited at the budget rung; the next generation asks again")
		return r.waiting().Continue(ctx, stepWaits{})
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
func (q requests) askModel(ctx workflow.Context, reqID string, ask modelAsk) (*activities.ModelReply, []activities.Message, error) {
	r := q.r
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
	req.WaitsOutage = true
	r.edit().Checkpoint(reqID)
	opts := modelOptions(run.Spec.Model)
	var stream *streaming
	if r.model().Streams(ctx) {
		req.StreamTo = reqID
		opts.HeartbeatTimeout = model.HeartbeatTimeout
		stream = &streaming{reqID: reqID, p: newPipeline(ctx, r), open: true}
	} else {
		opts = r.model().WithHeartbeat(ctx, opts)
	}
	r.streaming = stream
	var reply activities.ModelReply
	actx, abandon := workflow.WithCancel(workflow.WithActivityOptions(ctx, withSummary(opts, modelSummary(run.Step))))
	fut := workflow.ExecuteActivity(actx, acts.CallModel, req)
	var ready bool
	if stream != nil {
		ready = q.awaitStreamed(ctx, fut, stream)
	} else {
		ready = r.waiting().AwaitOrInterrupt(ctx, fut)
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
		q.endStream(ctx, stream, notRunText(r.life.Stops()), r.life.Stops())
		return nil, nil, errInterrupted
	}
	if err := fut.Get(ctx, &reply); err != nil {
		if cancelled(ctx, err) {
			return nil, nil, r.cancelled(ctx, reqID)
		}
		if r.model().FallBack(ctx, reqID, err) {
			q.endStream(ctx, stream, "not run: the model request is asked again of a fallback model", "")
			return nil, nil, errFellBack
		}
		status, waited, down := q.modelOutage(ctx, reqID, err)
		if down {
			q.endStream(ctx, stream, "not run: the model request is asked again once the outage of its models is waited out", "")
			if err := q.waitOutModels(ctx, reqID, status); err != nil {
				return nil, nil, err
			}
			return nil, nil, errFellBack
		}
		msg := errorText(err) + waited
		r.finishNode(ctx, reqID, nil, msg)
		q.endStream(ctx, stream, "not run: the model request it came from failed", "")
		run.LastError = msg
		return nil, nil, r.stop(ctx, "model request failed: "+msg)
	}
	return &reply, conv, nil
}

// maxRequestBytes keeps a model request under Temporal's 2 MB payload limit.
const maxRequestBytes = config.MaxPayloadBytes

// replyView is what a request node shows of the reply.
type replyRecord struct {
	Content      string                `json:"content,omitempty"`
	ToolCalls    []activities.ToolCall `json:"tool_calls,omitempty"`
	FinishReason string                `json:"finish_reason,omitempty"`
	Refusal      string                `json:"refusal,omitempty"`
	// Compactions the request's conversation took before it was sent
	// (policies.context).
	Compactions []model.Compaction `json:"compactions,omitempty"`
	// LongerReply: the first reply was cut off in a call's arguments, and
	// this is the max_tokens it was asked again with (model/longer.go).
	LongerReply int `json:"longer_reply,omitempty"`
}

func replyView(r activities.ModelReply) replyRecord {
	return replyRecord{Content: r.Content, ToolCalls: r.ToolCalls, FinishReason: r.FinishReason, Refusal: r.Refusal}
}
