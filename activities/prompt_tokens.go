package activities

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/tokens"
)

// overBudget counts a request's prompt when it could be over budget (the
// bytes bound the tokens: most prompts are answered without tokenizing)
// and answers the count when it is.
func overBudget(model string, mc ModelContext, budget int) (int, bool) {
	msgs, defs := promptParts(mc)
	bound := tokens.MessagesAtMost(msgs)
	for _, d := range defs {
		bound += len(d)
	}
	if bound <= budget {
		return 0, false
	}
	n := countPrompt(model, msgs, defs)
	return n, n > budget
}

// promptTokens counts a request's prompt as the provider would: the
// messages with their framing, and the tool definitions.
func promptTokens(model string, mc ModelContext) int {
	msgs, defs := promptParts(mc)
	return countPrompt(model, msgs, defs)
}

func countPrompt(model string, msgs []tokens.Message, defs []string) int {
	n, _ := tokens.Messages(model, msgs)
	for _, d := range defs {
		n += tokens.Count(model, d)
	}
	return n
}

// promptParts are a prompt's messages and tool definitions as counted.
func promptParts(mc ModelContext) ([]tokens.Message, []string) {
	msgs := make([]tokens.Message, len(mc.Messages))
	for i, m := range mc.Messages {
		msgs[i] = tokens.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msgs[i].Calls = append(msgs[i].Calls, tokens.Call{Name: tc.Name, Args: tc.Args})
		}
	}
	defs := make([]string, len(mc.Tools))
	for i, d := range mc.Tools {
		def, _ := json.Marshal(d)
		defs[i] = string(def)
	}
	return msgs, defs
}

// estimateUsage counts a reply's tokens where the provider reported no
// usage, so a run's spend is never blind: the prompt as sent and the
// reply's content and calls, by this worker's tokenizer.
func estimateUsage(model string, mc ModelContext, reply *ModelReply) {
	reply.InputTokens = promptTokens(model, mc)
	out := tokens.Count(model, reply.Content) + tokens.Count(model, reply.Refusal)
	for _, tc := range reply.ToolCalls {
		out += tokens.Count(model, tc.Name) + tokens.Count(model, tc.Args)
	}
	reply.OutputTokens = out
	reply.Estimated = true
}
