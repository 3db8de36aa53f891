package activities

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// ModelRequest asks for the next model reply of the calling run. It holds
// only what is new since the previous request (Delta), not the whole
// conversation: the activity rebuilds the rest from its cache or by
// querying the run.
type ModelRequest struct {
	// Agent names the agent whose model answers: its endpoint, key and
	// name are looked up in the worker's config at call time, never sent
	// by the workflow. Empty (requests of earlier versions): the file's model.
	Agent string `json:"agent"`
	// Base is how many messages the run had before Delta.
	Base int `json:"base"`
	// AfterReply is the ReplyID of the last reply the run recorded, so a
	// cached conversation is used only if it ends with that reply.
	AfterReply string    `json:"after_reply,omitempty"`
	Delta      []Message `json:"delta"`
	// Tools are sent with the first request of a run (Base 0), which then
	// needs no query: Delta is the whole conversation.
	Tools []ToolDef `json:"tools,omitempty"`
	// StreamTo, set by runs whose agent streams calls, is the request's
	// node: each call the model finishes while its reply still streams is
	// sent to the run (signals.StreamedCall) as a StreamedCall under it.
	StreamTo string `json:"stream_to,omitempty"`
	// Node is the request's node in the run's trace: a streamed reply's
	// heartbeat names it with the text written so far, for followers.
	Node string `json:"node,omitempty"`
	// PromptBudget, set for agents with policies.context, is how many
	// tokens the prompt may take: a conversation counted over it is not
	// sent, and the reply says so (OverBudget) so the run compacts it.
	PromptBudget int `json:"prompt_budget,omitempty"`
	// Fallback picks the model: 0 the agent's own, i its i-th fallback
	// (model.fallbacks in the worker's config).
	Fallback int `json:"fallback,omitempty"`
	// MaxTokens, when set, bounds the reply (a reply cut off in a call's
	// arguments is asked again with the model's max_output_tokens).
	MaxTokens int `json:"max_tokens,omitempty"`
	// SpendTokens, set for runs with a budget, is the most tokens the
	// prompt may take without crossing it: a prompt counted over it is not
	// sent, and the reply says so (OverSpend).
	SpendTokens int `json:"spend_tokens,omitempty"`
	// WaitsOutage: the run waits an outage of its models out itself
	// (workflows/model_outage.go), so the worker's breaker refusing the
	// request is final even for its last model: the run parks on a timer
	// instead of holding the request in retries. Runs of earlier releases
	// send none, and their refusals are retried after the cooldown.
	WaitsOutage bool `json:"waits_outage,omitempty"`
}

// PromptCount is a prompt counted over the request's budget, unsent, or
// one the provider refused as over the model's window (Refused; Tokens is
// then this worker's count).
type PromptCount struct {
	Tokens  int  `json:"tokens"`
	Budget  int  `json:"budget"`
	Refused bool `json:"refused,omitempty"`
}

// StreamedCall is a tool call the model finished writing before its reply
// ended: the Index-th call of the reply to request Request, sent by
// attempt Attempt of the model activity.
type StreamedCall struct {
	Request string   `json:"request"`
	Index   int      `json:"index"`
	Attempt int32    `json:"attempt"`
	Call    ToolCall `json:"call"`
}

// ModelReply is the model's answer: content, tool calls, or both. It is
// the model activity's result, recorded in the run's history at every
// step, so it carries only what the workflow reads; what only the chat
// span reports (the provider's response id and model) is not recorded.
// Replies recorded before held those too ("model", and the provider's id
// in reply_id): they decode the same.
type ModelReply struct {
	// ReplyID names the reply within its run: the model activity's id
	// and attempt (replyID), which the run sends back as the next
	// request's AfterReply.
	ReplyID   string     `json:"reply_id"`
	Content   string     `json:"content,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// FinishReason is how the reply finished, left out when it is
	// "tool_calls" and the reply has calls (compactReply): the calls say
	// so.
	FinishReason string `json:"finish_reason,omitempty"`
	// Refusal is the model's refusal to answer (OpenAI's message.refusal),
	// in place of content and calls.
	Refusal string `json:"refusal,omitempty"`
	// ResponseID and Model are the provider's id of the response and the
	// model it names, for the chat span only.
	ResponseID string `json:"-"`
	Model      string `json:"-"`
	// The tokens the request used, as the server counted them: the
	// workflow counts them in unstuck_model_tokens (workflows/metrics.go).
	InputTokens  int `json:"input_tokens,omitempty"`
	OutputTokens int `json:"output_tokens,omitempty"`
	// OverBudget: the prompt was counted over the request's PromptBudget
	// and not sent; the reply holds nothing else.
	OverBudget *PromptCount `json:"over_budget,omitempty"`
	// OverSpend: the prompt was counted over the request's SpendTokens and
	// not sent; the reply holds nothing else.
	OverSpend *PromptCount `json:"over_spend,omitempty"`
	// Estimated: the provider reported no usage; InputTokens and
	// OutputTokens are this worker's count.
	Estimated bool `json:"estimated,omitempty"`
}

// CallModel sends one chat-completions request. go-openai does not retry
// by itself; failures are classed so Temporal retries what is worth it.
func (a *Activities) CallModel(ctx context.Context, req ModelRequest) (*ModelReply, error) {
	model, hasFallback, err := a.modelAt(req.Agent, req.Fallback)
	if err != nil {
		return nil, err
	}
	if err := a.modelBreakers.allow(model, time.Now(), hasFallback || req.WaitsOutage); err != nil {
		return nil, err
	}
	info := activity.GetInfo(ctx).WorkflowExecution
	mc, err := a.modelContext(ctx, info.ID, info.RunID, req)
	if err != nil {
		// The conversation could not be read: nothing was sent.
		a.modelBreakers.release(model)
		return nil, err
	}
	ctx, span := a.startChatSpan(ctx, model.Name)
	reply, err := a.chat(ctx, model, req, mc)
	endChatSpan(span, reply, err)
	a.modelBreakers.record(model, time.Now(), reply, abandonedOr(ctx, err))
	compactReply(reply)
	return reply, err
}

// compactReply leaves out of a reply what its history event need not
// repeat at every step: the finish reason "tool_calls" of a reply with
// calls (the workflow reads a finish reason only to find a reply cut off,
// "length", or one that answers nothing, which has no calls). The span
// has reported it already.
func compactReply(reply *ModelReply) {
	if reply != nil && len(reply.ToolCalls) > 0 && reply.FinishReason == string(openai.FinishReasonToolCalls) {
		reply.FinishReason = ""
	}
}

// replyID names a reply within its run by the model activity's id and
// attempt: unique within a run (each request is its own activity, each
// try its own attempt), so a reply the run never recorded (an attempt
// that timed out) does not match the next request's AfterReply; a cache
// entry put by another run of the workflow id is confirmed by digest
// (Activities.carriedContext). The provider's id would do too but is
// longer, and is recorded twice at every step (the reply, the next
// request); the chat span reports it.
func replyID(info activity.Info) string {
	return fmt.Sprintf("%s#%d", info.ActivityID, info.Attempt)
}

// abandonedOr is a request's outcome for the model's breaker: a request
// the run cancelled (an edit abandoned it, the run was cancelled) fails
// as the model being unavailable, but proves nothing of the model, so it
// is context.Canceled, which only gives up a trial it held. A timeout is
// the model's: it counts.
func abandonedOr(ctx context.Context, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		return context.Canceled
	}
	return err
}

// chat sends the conversation mc, unless it is counted over
// the request's prompt budget (or the provider refuses it as over the
// model's window): then the reply says so, unsent.
func (a *Activities) chat(ctx context.Context, model config.Model, req ModelRequest, mc ModelContext) (*ModelReply, error) {
	if req.PromptBudget > 0 {
		if n, over := overBudget(model.Name, mc, req.PromptBudget); over {
			return &ModelReply{OverBudget: &PromptCount{Tokens: n, Budget: req.PromptBudget}}, nil
		}
	}
	if req.SpendTokens > 0 {
		if n, over := overBudget(model.Name, mc, req.SpendTokens); over {
			return &ModelReply{OverSpend: &PromptCount{Tokens: n, Budget: req.SpendTokens}}, nil
		}
	}
	reply, err := a.sendChat(ctx, model, req, mc)
	if err == nil && reply.InputTokens == 0 && reply.OutputTokens == 0 {
		estimateUsage(model.Name, mc, reply)
	}
	var app *temporal.ApplicationError
	if req.PromptBudget > 0 && errors.As(err, &app) && app.Type() == ModelContextExceededError {
		// Counted under the budget, refused all the same (the provider
		// counts otherwise): the run compacts, as for one counted over.
		return &ModelReply{OverBudget: &PromptCount{Tokens: promptTokens(model.Name, mc), Budget: req.PromptBudget, Refused: true}}, nil
	}
	return reply, err
}

// sendChat sends the conversation and caches it with the reply.
func (a *Activities) sendChat(ctx context.Context, model config.Model, req ModelRequest, mc ModelContext) (*ModelReply, error) {
	info := activity.GetInfo(ctx)
	wf := info.WorkflowExecution

	client, capture := a.chatClient(model)
	request := openai.ChatCompletionRequest{
		Model:               model.Name,
		Messages:            toOpenAIMessages(mc.Messages),
		Tools:               toOpenAITools(mc.Tools),
		MaxCompletionTokens: req.MaxTokens,
	}
	var reply *ModelReply
	var err error
	if a.config.StreamsReply(req.Agent) {
		reply, err = streamedReply(ctx, model, client, capture, request, req.Node, a.callSender(ctx, req.Agent, req.StreamTo))
	} else {
		stopBeats := heartbeatWhileWaiting(ctx)
		reply, err = wholeReply(ctx, model, client, capture, request)
		stopBeats()
	}
	if err != nil {
		return nil, err
	}
	reply.ReplyID = replyID(info)
	// The reply is this activity's result: over Temporal's payload limit it
	// could not be recorded, and every retry would fail the same way.
	if size := replySize(reply); size > config.MaxPayloadBytes {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("model %q: the reply is %d KiB, over the %d KiB Temporal may carry in one payload", model.Name, size>>10, config.MaxPayloadBytes>>10),
			ModelRejectedError, nil)
	}
	mc.Messages = append(mc.Messages, AssistantMessage(reply.Content, reply.Refusal, reply.ToolCalls))
	a.convos.put(wf.ID, wf.RunID, mc, reply.ReplyID)
	return reply, nil
}

// wholeReply asks for the reply in one response.
func wholeReply(ctx context.Context, model config.Model, client *openai.Client, capture *headerCapture, request openai.ChatCompletionRequest) (*ModelReply, error) {
	resp, err := client.CreateChatCompletion(ctx, request)
	if err != nil {
		return nil, modelError(model, err, capture.retryAfter())
	}
	if len(resp.Choices) == 0 {
		return nil, modelError(model, fmt.Errorf("reply %s has no choices", resp.ID), 0)
	}
	choice := resp.Choices[0]
	reply := &ModelReply{
		ResponseID:   resp.ID,
		Content:      choice.Message.Content,
		FinishReason: string(choice.FinishReason),
		Refusal:      choice.Message.Refusal,
		Model:        resp.Model,
		InputTokens:  resp.Usage.PromptTokens,
		OutputTokens: resp.Usage.CompletionTokens,
	}
	for _, tc := range choice.Message.ToolCalls {
		reply.ToolCalls = append(reply.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
	}
	return reply, nil
}

// model is the model an agent talks to, from the worker's config. An agent
// removed from the config since its run started fails the request for good.
func (a *Activities) model(agent string) (config.Model, error) {
	m, err := a.config.ModelFor(agent, a.getenv)
	if err != nil {
		return config.Model{}, temporal.NewNonRetryableApplicationError(err.Error(), ModelRejectedError, nil)
	}
	return m, nil
}

// modelAt is the model at place fallback of an agent's list (0: its own,
// i: its i-th fallback), and whether a fallback follows it.
func (a *Activities) modelAt(agent string, fallback int) (config.Model, bool, error) {
	model, err := a.model(agent)
	if err != nil {
		return config.Model{}, false, err
	}
	if fallback > len(model.Fallbacks) {
		return config.Model{}, false, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"agent %q: fallback model %d is no longer in this worker's config (it lists %d)", agent, fallback, len(model.Fallbacks)), ModelRejectedError, nil)
	}
	return model.At(fallback), fallback < len(model.Fallbacks), nil
}

// chatClient is a go-openai client for one request to the model, with the
// key read now from the environment, the model's timeout (of the whole
// request, a streamed reply's too), and a transport that keeps the
// Retry-After header go-openai's errors do not expose and tells a
// streamed reply's stall watch of the bytes it reads.
func (a *Activities) chatClient(m config.Model) (*openai.Client, *headerCapture) {
	capture := &headerCapture{base: watchedBodies{base: http.DefaultTransport}}
	cfg := openai.DefaultConfig(m.APIKey(a.getenv))
	cfg.BaseURL = m.BaseURL
	cfg.HTTPClient = &http.Client{Transport: capture, Timeout: m.RequestTimeout()}
	return openai.NewClientWithConfig(cfg), capture
}

// modelContext assembles the conversation: the cached one plus the delta
// when the cache holds exactly what the run had, else the run's own answer.
func (a *Activities) modelContext(ctx context.Context, workflowID, runID string, req ModelRequest) (ModelContext, error) {
	if req.Base == 0 && req.Tools != nil {
		return ModelContext{Messages: append([]Message(nil), req.Delta...), Tools: req.Tools}, nil
	}
	mc, from, ok := a.convos.get(workflowID, req.Base, req.AfterReply)
	if ok && from == runID {
		mc.Messages = append(mc.Messages, req.Delta...)
		return mc, nil
	}
	if a.querier == nil {
		return ModelContext{}, fmt.Errorf("model context of %s: not cached and no Temporal client to query the run", workflowID)
	}
	if ok {
		return a.carriedContext(ctx, workflowID, runID, mc, req.Base)
	}
	return a.queryModelContext(ctx, workflowID, runID)
}

// carriedContext is the conversation of the first request of a new run of
// the workflow id (continue-as-new) whose Base and AfterReply match what
// an earlier run left in the cache. The new run confirms it by digest (a
// rollback may have changed earlier messages without changing those) and
// answers only the messages from Base on; on a mismatch it is read whole.
func (a *Activities) carriedContext(ctx context.Context, workflowID, runID string, cached ModelContext, base int) (ModelContext, error) {
	page, err := a.queryPage(ctx, workflowID, runID, ModelContextQuery{Since: base, Digest: true})
	if err != nil {
		return ModelContext{}, err
	}
	switch page.Digest {
	case "":
		// A run of an earlier version ignores the argument and answers
		// the whole conversation.
		return ModelContext{Messages: page.Messages, Tools: page.Tools}, nil
	case ConversationDigest(cached.Messages, cached.Tools):
		return a.restOfPages(ctx, workflowID, runID, cached, base, page)
	default:
		return a.queryModelContext(ctx, workflowID, runID)
	}
}

// queryModelContext reads the run's conversation with the model context
// query, page by page (ModelContextQuery), so a conversation larger than
// Temporal's limit on a query result still arrives. A run of an earlier
// version ignores the argument and answers the whole conversation without
// next: that answer is taken as it is, as before paging existed.
func (a *Activities) queryModelContext(ctx context.Context, workflowID, runID string) (ModelContext, error) {
	page, err := a.queryPage(ctx, workflowID, runID, ModelContextQuery{})
	if err != nil {
		return ModelContext{}, err
	}
	return a.restOfPages(ctx, workflowID, runID, ModelContext{Tools: page.Tools}, 0, page)
}

// restOfPages appends page, answered from message since, and the pages
// after it to mc.
func (a *Activities) restOfPages(ctx context.Context, workflowID, runID string, mc ModelContext, since int, page ModelContextPage) (ModelContext, error) {
	for {
		mc.Messages = append(mc.Messages, page.Messages...)
		if page.Next == 0 {
			return mc, nil
		}
		if len(page.Messages) == 0 || page.Next != since+len(page.Messages) {
			// Never from this code's run; asking again could loop forever.
			return ModelContext{}, fmt.Errorf("model context of %s: the page from message %d holds %d messages but says next is %d",
				workflowID, since, len(page.Messages), page.Next)
		}
		since = page.Next
		var err error
		if page, err = a.queryPage(ctx, workflowID, runID, ModelContextQuery{Since: since}); err != nil {
			return ModelContext{}, err
		}
	}
}

// queryPage asks the run for one page of its conversation.
func (a *Activities) queryPage(ctx context.Context, workflowID, runID string, q ModelContextQuery) (ModelContextPage, error) {
	val, err := a.querier.QueryWorkflow(ctx, workflowID, runID, signals.QueryModelContext, q)
	if err != nil {
		msg := fmt.Sprintf("model context of %s: query %s: %v", workflowID, signals.QueryModelContext, err)
		var failed *serviceerror.QueryFailed
		if errors.As(err, &failed) {
			// The run answered, with a failure (its code has no such
			// query, or the handler broke): retrying cannot help.
			return ModelContextPage{}, temporal.NewNonRetryableApplicationError(msg, "ModelContextUnavailable", err)
		}
		return ModelContextPage{}, errors.New(msg)
	}
	var page ModelContextPage
	if err := val.Get(&page); err != nil {
		return ModelContextPage{}, fmt.Errorf("model context of %s: decode: %w", workflowID, err)
	}
	return page, nil
}

func toOpenAIMessages(msgs []Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	for _, m := range msgs {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Args},
			})
		}
		out = append(out, om)
	}
	return out
}

func toOpenAITools(defs []ToolDef) []openai.Tool {
	out := make([]openai.Tool, 0, len(defs))
	for _, d := range defs {
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: d.Name, Description: d.Description, Parameters: d.Parameters,
		}})
	}
	return out
}

// replySize is about what a reply weighs as a payload.
func replySize(r *ModelReply) int {
	n := len(r.Content) + len(r.ReplyID) + 128
	for _, tc := range r.ToolCalls {
		n += len(tc.ID) + len(tc.Name) + len(tc.Args) + 64
	}
	return n
}
