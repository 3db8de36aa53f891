package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/unstuck-dev/unstuck/activities"
)

// A conversation outgrowing the payload limit is fitted, oldest results
// first: every request still carries the previous step's result whole, so
// the model can go on from it.
func TestAFittedConversationKeepsTheLastResultWhole(t *testing.T) {
	var replies []activities.ModelReply
	for i := range 60 {
		replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{
			call(fmt.Sprintf("k%d", i), "a", fmt.Sprintf(`{"i": %d}`, i)),
		}})
	}
	pad := strings.Repeat("ab", 20<<10) // 60 steps of 40 KiB: fitted from about step 37
	h := newHarness(t, echoSpec(), replies, func(req activities.ToolRequest) (json.RawMessage, error) {
		var args map[string]any
		_ = json.Unmarshal(req.Args, &args)
		return mustJSON(map[string]any{"data": pad, "i": args["i"]}), nil
	})
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "count"})
	resent := 0
	for k, req := range h.requests {
		if k == 0 {
			continue
		}
		if req.Base == 0 {
			resent++ // the conversation was fitted: sent whole
		}
		last := req.Delta[len(req.Delta)-1]
		if !strings.Contains(last.Content, fmt.Sprintf(`"i":%d`, k-1)) {
			t.Errorf("request %d (base %d, %d delta): last message %s %.200s ... %.200s", k, req.Base, len(req.Delta), last.Role, last.Content, last.Content[max(0, len(last.Content)-200):])
		}
	}
	if resent == 0 {
		t.Fatal("the conversation never outgrew the payload limit: the test proves nothing")
	}
}
