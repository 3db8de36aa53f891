package activities

import (
	"context"
	"encoding/json"
	"fmt"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/temporal"
)

// RepairPrompt opens the focused request for corrected arguments, so a
// model (or a test double) can tell it from a turn of the conversation.
const RepairPrompt = "You correct the arguments of one tool call."

// BadRepairError is the application error type of a repair request whose
// answer is not a call of the tool: retrying it would not help.
const BadRepairError = "ModelBadRepair"

// RepairRequest asks the model for corrected arguments of one call: what
// rules could not fix needs judgement (a missing value, a semantic
// rejection), and this request is all it gets — not a conversation turn.
type RepairRequest struct {
	Agent string          `json:"agent"` // whose model: looked up in the worker's config
	Task  string          `json:"task"`
	Tool  ToolDef         `json:"tool"`
	Args  json.RawMessage `json:"args"`
	Error string          `json:"error"`
	// WithUsage (runs since version repair-spend) asks for a RepairReply,
	// whose tokens the run's spend counts; without it the answer is the
	// arguments alone, as runs recorded before read it.
	WithUsage bool `json:"with_usage,omitempty"`
	// SpendTokens, set for runs with a budget, is the most tokens the
	// prompt may take without crossing it: a prompt counted over it is not
	// sent (RepairOverSpendError).
	SpendTokens int `json:"spend_tokens,omitempty"`
	// Fallback picks the model, as ModelRequest's does: the one the run
	// asks now, whose price the run's spend counts the repair at.
	Fallback int `json:"fallback,omitempty"`
}

// RepairReply answers a request WithUsage: the arguments of the model's
// call of the tool (none: it answered no such call, and was paid all the
// same) and the request's tokens, as the provider counted them (or this
// worker, Estimated, where it reported none).
type RepairReply struct {
	Args         json.RawMessage `json:"args,omitempty"`
	InputTokens  int             `json:"input_tokens,omitempty"`
	OutputTokens int             `json:"output_tokens,omitempty"`
	Estimated    bool            `json:"estimated,omitempty"`
}

// RepairOverSpendError is the application error type of a repair request
// whose prompt was counted over the run's budget and not sent.
const RepairOverSpendError = "RepairOverSpend"

// RepairArgs sends the focused request, forcing a call of the tool, and
// answers the arguments of that call (unchecked: the workflow validates
// them against the schema again), or with WithUsage a RepairReply.
func (a *Activities) RepairArgs(ctx context.Context, req RepairRequest) (json.RawMessage, error) {
	model, _, err := a.modelAt(req.Agent, req.Fallback)
	if err != nil {
		return nil, err
	}
	problem, _ := json.Marshal(map[string]any{
		"task": req.Task, "tool": req.Tool.Name, "arguments": json.RawMessage(req.Args), "error": req.Error,
	})
	mc := ModelContext{Messages: []Message{
		{Role: openai.ChatMessageRoleSystem, Content: RepairPrompt + " The tool refused them for the reason given. " +
			"Call the tool once with corrected arguments: keep every argument that is right, fix what the error names, " +
			"and infer a missing value from the task only when the task makes it clear."},
		{Role: openai.ChatMessageRoleUser, Content: string(problem)},
	}, Tools: []ToolDef{req.Tool}}
	if req.SpendTokens > 0 {
		if n, over := overBudget(model.Name, mc, req.SpendTokens); over {
			return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
				"the repair request's prompt is %d tokens, over the %d the run's budget leaves: not sent", n, req.SpendTokens), RepairOverSpendError, nil)
		}
	}
	client, capture := a.chatClient(model)
	defer heartbeatWhileWaiting(ctx)()
	resp, err := client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model:      model.Name,
		Messages:   toOpenAIMessages(mc.Messages),
		Tools:      toOpenAITools(mc.Tools),
		ToolChoice: openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: req.Tool.Name}},
	})
	if err != nil {
		return nil, modelError(model, err, capture.retryAfter())
	}
	var args json.RawMessage
	var calls []ToolCall
	for _, ch := range resp.Choices {
		for _, tc := range ch.Message.ToolCalls {
			calls = append(calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
			if args == nil && tc.Function.Name == req.Tool.Name && json.Valid([]byte(tc.Function.Arguments)) {
				args = json.RawMessage(tc.Function.Arguments)
			}
		}
	}
	if req.WithUsage {
		// Answered, so paid for: the run counts it even without a call.
		usage := &ModelReply{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens, ToolCalls: calls}
		if len(resp.Choices) > 0 {
			usage.Content = resp.Choices[0].Message.Content
		}
		if usage.InputTokens == 0 && usage.OutputTokens == 0 {
			estimateUsage(model.Name, mc, usage)
		}
		return json.Marshal(RepairReply{Args: args, InputTokens: usage.InputTokens, OutputTokens: usage.OutputTokens, Estimated: usage.Estimated})
	}
	if args == nil {
		return nil, temporal.NewNonRetryableApplicationError(NoRepairCall(req.Tool.Name), BadRepairError, nil)
	}
	return args, nil
}

// NoRepairCall says that the model answered a repair request of tool with
// no call of it.
func NoRepairCall(tool string) string {
	return fmt.Sprintf("the model did not answer the repair request with a call of %s", tool)
}
