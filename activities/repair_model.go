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
}

// RepairArgs sends the focused request, forcing a call of the tool, and
// answers the arguments of that call (unchecked: the workflow validates
// them against the schema again).
func (a *Activities) RepairArgs(ctx context.Context, req RepairRequest) (json.RawMessage, error) {
	model, err := a.model(req.Agent)
	if err != nil {
		return nil, err
	}
	client, capture := a.chatClient(model)
	defer heartbeatWhileWaiting(ctx)()
	problem, _ := json.Marshal(map[string]any{
		"task": req.Task, "tool": req.Tool.Name, "arguments": json.RawMessage(req.Args), "error": req.Error,
	})
	resp, err := client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: model.Name,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: RepairPrompt + " The tool refused them for the reason given. " +
				"Call the tool once with corrected arguments: keep every argument that is right, fix what the error names, " +
				"and infer a missing value from the task only when the task makes it clear."},
			{Role: openai.ChatMessageRoleUser, Content: string(problem)},
		},
		Tools:      toOpenAITools([]ToolDef{req.Tool}),
		ToolChoice: openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: req.Tool.Name}},
	})
	if err != nil {
		return nil, modelError(model, err, capture.retryAfter())
	}
	for _, ch := range resp.Choices {
		for _, tc := range ch.Message.ToolCalls {
			if tc.Function.Name == req.Tool.Name && json.Valid([]byte(tc.Function.Arguments)) {
				return json.RawMessage(tc.Function.Arguments), nil
			}
		}
	}
	return nil, temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("the model did not answer the repair request with a call of %s", req.Tool.Name), BadRepairError, nil)
}
