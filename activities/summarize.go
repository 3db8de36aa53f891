package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/tokens"
)

// SummaryRequest asks the agent's model to summarize the oldest turns of
// a run's conversation (policies.context): Messages, of which the model
// reads as many of the newest as fit in Budget tokens.
type SummaryRequest struct {
	Agent    string    `json:"agent"`
	Messages []Message `json:"messages"`
	Budget   int       `json:"budget"`
	// Fallback picks the model, as ModelRequest's does: the one the run
	// asks now, whose price the run's spend counts the summary at (0, as
	// requests before it had: the agent's own).
	Fallback int `json:"fallback,omitempty"`
}

// SummaryReply is the summary and how many of the messages it covers
// (the oldest that did not fit were left out).
type SummaryReply struct {
	Text    string `json:"text"`
	Read    int    `json:"read"`
	Dropped int    `json:"dropped,omitempty"`
	// The summary request's tokens, as the provider counted them (or this
	// worker, Estimated, where it reported none): a run's budget counts
	// them.
	InputTokens  int  `json:"input_tokens,omitempty"`
	OutputTokens int  `json:"output_tokens,omitempty"`
	Estimated    bool `json:"estimated,omitempty"`
}

// summaryInstructions tell the model what a summary must keep.
const summaryInstructions = "You compact the conversation of an AI agent that is still working on its task. " +
	"Summarize the turns below so the agent can go on from them without reading them again: " +
	"what was asked, the decisions taken, the facts and identifiers the tools returned that may still matter, " +
	"what failed and why, and what remains to be done. Be concise; do not invent anything."

// Summarize sends the turns to the run's model, without tools, and
// answers its summary.
func (a *Activities) Summarize(ctx context.Context, req SummaryRequest) (*SummaryReply, error) {
	model, _, err := a.modelAt(req.Agent, req.Fallback)
	if err != nil {
		return nil, err
	}
	budget := req.Budget
	for tries := 1; ; tries++ {
		transcript, read := transcriptWithin(model.Name, req.Messages, budget)
		client, capture := a.chatClient(model)
		resp, err := client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
			Model: model.Name,
			Messages: []openai.ChatCompletionMessage{
				{Role: openai.ChatMessageRoleSystem, Content: summaryInstructions},
				{Role: openai.ChatMessageRoleUser, Content: transcript},
			},
		})
		if err != nil {
			err = modelError(model, err, capture.retryAfter())
			var app *temporal.ApplicationError
			if tries < maxSummaryTries && budget > 1 && errors.As(err, &app) && app.Type() == ModelContextExceededError {
				budget /= 2 // the model's window is smaller than the run was told
				continue
			}
			return nil, err
		}
		if len(resp.Choices) == 0 || strings.TrimSpace(resp.Choices[0].Message.Content) == "" {
			return nil, temporal.NewApplicationError(fmt.Sprintf("model %q: the summary came back empty", model.Name), ModelUnavailableError)
		}
		reply := &SummaryReply{Text: resp.Choices[0].Message.Content, Read: read, Dropped: len(req.Messages) - read,
			InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens}
		if reply.InputTokens == 0 && reply.OutputTokens == 0 {
			reply.InputTokens = tokens.Count(model.Name, summaryInstructions) + tokens.Count(model.Name, transcript)
			reply.OutputTokens, reply.Estimated = tokens.Count(model.Name, reply.Text), true
		}
		return reply, nil
	}
}

// maxSummaryTries: a summary refused as too long is asked again with half
// the turns, this many times in all.
const maxSummaryTries = 3

// transcriptWithin renders the newest messages that fit in budget tokens
// (all when budget is 0) as one text, oldest first, and says how many.
func transcriptWithin(model string, msgs []Message, budget int) (string, int) {
	lines := make([]string, len(msgs))
	for i, m := range msgs {
		line := m.Role + ": " + m.Content
		for _, tc := range m.ToolCalls {
			line += fmt.Sprintf("\n  call %s %s(%s)", tc.ID, tc.Name, tc.Args)
		}
		if m.ToolCallID != "" {
			line = "tool result of " + m.ToolCallID + ": " + m.Content
		}
		lines[i] = line
	}
	from, used := len(lines), 0
	for from > 0 {
		n := tokens.Count(model, lines[from-1]) + 4
		if budget > 0 && used+n > budget {
			break
		}
		used += n
		from--
	}
	text := strings.Join(lines[from:], "\n\n")
	if from > 0 {
		text = fmt.Sprintf("[%d older turns did not fit and are left out]\n\n", from) + text
	}
	return text, len(lines) - from
}
