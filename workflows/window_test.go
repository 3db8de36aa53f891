package workflows

import (
	"slices"
	"sync"

	"github.com/unstuck-dev/unstuck/activities"
)

// promptWindow is a test double of the model activity's prompt count
// (policies.context): it keeps what the activity was sent, as the
// activity does (the first Base messages of it, then a request's Delta),
// counts each prompt at a token per four bytes, and answers a prompt over
// the request's prompt budget unsent.
type promptWindow struct {
	mu sync.Mutex
	// sent is what the activity has: the last prompt sent and its reply.
	sent   []activities.Message
	prompt []activities.Message
	// unsentN counts the prompts answered unsent; sizes are the tokens of
	// each prompt sent to the model.
	unsentN int
	sizes   []int
}

// promptTokens counts a prompt as promptWindow does.
func promptTokens(msgs []activities.Message) int {
	n := 0
	for _, m := range msgs {
		n += messageSize(m) + len(m.Role)
	}
	return n / 4
}

// over is the count of a prompt over its budget, which is not sent; nil
// when it is sent (always, with no window).
func (w *promptWindow) over(req activities.ModelRequest) *activities.PromptCount {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	conv := append(slices.Clone(w.sent[:min(req.Base, len(w.sent))]), req.Delta...)
	tokens := promptTokens(conv)
	if req.PromptBudget > 0 && tokens > req.PromptBudget {
		w.unsentN++
		return &activities.PromptCount{Tokens: tokens, Budget: req.PromptBudget}
	}
	w.prompt = conv
	w.sizes = append(w.sizes, tokens)
	return nil
}

// answered keeps the reply to the prompt sent, as the activity does.
func (w *promptWindow) answered(r *activities.ModelReply) *activities.ModelReply {
	if w != nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.sent = append(w.prompt, activities.AssistantMessage(r.Content, r.Refusal, r.ToolCalls))
	}
	return r
}

// unsent counts the prompts answered unsent (none, with no window).
func (w *promptWindow) unsent() int {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unsentN
}
