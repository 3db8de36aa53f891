package policies

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A tool's own volatile fields leave its calls' keys, as names at any
// depth or as JSON pointers at one place only; the blocklist follows.
func TestCallEventToolVolatile(t *testing.T) {
	key := func(args string, volatile ...string) string {
		return CallEvent{Tool: "send", Args: json.RawMessage(args), Outcome: "ok", Volatile: volatile}.Key()
	}
	base := `{"to":"ops","meta":{"n":1}}`
	same := []struct {
		name, args string
		volatile   []string
	}{
		{"a name at the top", `{"to":"ops","meta":{"n":1},"sent_at":"10:00"}`, []string{"sent_at"}},
		{"a name nested", `{"to":"ops","meta":{"n":1,"sent_at":"10:00"}}`, []string{"sent_at"}},
		{"a pointer", `{"to":"ops","meta":{"n":1,"id":"x-9"}}`, []string{"/meta/id"}},
		{"a pointer into an array", `{"to":"ops","meta":{"n":1},"parts":[{"seq":4}]}`, []string{"/parts"}},
		{"an escaped pointer", `{"to":"ops","meta":{"n":1},"a/b":1}`, []string{"/a~1b"}},
	}
	for _, tc := range same {
		require.Equal(t, key(base, tc.volatile...), key(tc.args, tc.volatile...), tc.name)
		require.Equal(t, BlockKey("send", []byte(base), tc.volatile), BlockKey("send", []byte(tc.args), tc.volatile), tc.name)
	}
	differ := []struct {
		name, a, b string
		volatile   []string
	}{
		{"without the tool's volatile", base, `{"to":"ops","meta":{"n":1},"sent_at":"10:00"}`, nil},
		{"a pointer is one place only", `{"id":1,"meta":{"n":1}}`, `{"id":2,"meta":{"n":1}}`, []string{"/meta/id"}},
		{"an array element by index", `{"p":[{"id":1},{"id":1}]}`, `{"p":[{"id":1},{"id":2}]}`, []string{"/p/0/id"}},
	}
	for _, tc := range differ {
		require.NotEqual(t, key(tc.a, tc.volatile...), key(tc.b, tc.volatile...), tc.name)
	}
	require.Equal(t, key(`{"p":[{"id":1},{"id":1}]}`, "/p/1/id"), key(`{"p":[{"id":1},{"id":2}]}`, "/p/1/id"), "an array element by index")
	require.Equal(t, key(base), CallEvent{Tool: "send", Args: json.RawMessage(base), Outcome: "ok"}.Key(),
		"no volatile of its own: the key recorded histories hold")
}

// An llm node's event is what its reply asked for: the calls' tools and
// canonical arguments, without ids, order or volatile fields; anything
// else the model asks for is new.
func TestStableLLMNodeEvent(t *testing.T) {
	ev := func(content, outcome string, calls ...LLMCall) LoopEvent {
		return StableLLMNodeEvent("L", calls, content, outcome)
	}
	a := LLMCall{Tool: "lookup", Args: []byte(`{"q":"NYC","request_id":"r1"}`)}
	a2 := LLMCall{Tool: "lookup", Args: []byte(`{ "request_id":"r2", "q":"NYC" }`)}
	b := LLMCall{Tool: "book", Args: []byte(`{"seat":"1A","at":"10:00"}`), Volatile: []string{"at"}}
	b2 := LLMCall{Tool: "book", Args: []byte(`{"seat":"1A","at":"10:05"}`), Volatile: []string{"at"}}
	require.Equal(t, ev("", "ok", a, b), ev("", "ok", b2, a2), "ids never enter; order, spacing and volatile fields do not count")

	base := ev("", "ok", a)
	require.Equal(t, LoopEvent{Signature: base.Key + ":ok", Key: base.Key}, base)
	require.NotEqual(t, base.Key, ev("", "ok", LLMCall{Tool: "lookup", Args: []byte(`{"q":"LAX"}`)}).Key, "other arguments")
	require.NotEqual(t, base.Key, ev("", "ok", LLMCall{Tool: "search", Args: a.Args}).Key, "another tool")
	require.NotEqual(t, base.Key, ev("", "ok", a, a).Key, "the same call twice")
	require.NotEqual(t, base.Key, ev("thinking", "ok", a).Key, "the content")
	require.NotEqual(t, base.Key, StableLLMNodeEvent("M", []LLMCall{a}, "", "ok").Key, "the node")
	failed := ev("", "failed", a)
	require.Equal(t, base.Key, failed.Key)
	require.True(t, failed.Failed)
	require.NotEqual(t, base.Signature, failed.Signature)
	noOp := ev("", "no_op", a)
	require.Equal(t, LoopEvent{Signature: base.Key + ":no_op", Key: base.Key, Failed: true, Class: "no_op"}, noOp, "no progress, of class no_op")
}
