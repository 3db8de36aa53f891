package activities

import "testing"

// A reply with neither content nor calls is carried with a note in its
// content: chat-completions servers refuse an assistant message with
// neither.
func TestAssistantMessageNeverEmpty(t *testing.T) {
	calls := []ToolCall{{ID: "c1", Name: "t", Args: "{}"}}
	cases := []struct {
		content, refusal string
		calls            []ToolCall
		want             string
	}{
		{content: "hello", want: "hello"},
		{calls: calls, want: ""},
		{content: "", want: "[empty reply]"},
		{refusal: "I can't.", want: "[refused] I can't."},
		{content: "partly", refusal: "no", want: "partly"},
	}
	for _, c := range cases {
		m := AssistantMessage(c.content, c.refusal, c.calls)
		if m.Role != "assistant" || m.Content != c.want || len(m.ToolCalls) != len(c.calls) {
			t.Errorf("AssistantMessage(%q, %q, %d calls) = %+v, want content %q", c.content, c.refusal, len(c.calls), m, c.want)
		}
	}
}
