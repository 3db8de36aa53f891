package policies

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Key and Signature are the literal strings the workflow built before:
// callKey(where, tool, args) and callKey + ":" + outcome.
func TestCallEventStrings(t *testing.T) {
	cases := []struct {
		name   string
		ev     CallEvent
		failed bool
	}{
		{"free-form ok", CallEvent{Tool: "search", Args: json.RawMessage(`{"q":"x"}`), Outcome: "ok"}, false},
		{"graph node, failed", CallEvent{Where: "fetch", Tool: "http_get", Args: json.RawMessage(`{"url":"u"}`), Outcome: "transient"}, true},
		{"blank args", CallEvent{Tool: "now", Outcome: "ok"}, false},
		{"not JSON", CallEvent{Tool: "t", Args: json.RawMessage(`{oops`), Outcome: "invalid_args"}, true},
		{"empty outcome is a failure", CallEvent{Tool: "t", Args: json.RawMessage(`{}`)}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			key := CanonicalSignature(tc.ev.Where, tc.ev.Tool, tc.ev.Args, "", DefaultVolatile)
			require.Equal(t, key, tc.ev.Key())
			require.Equal(t, key+":"+tc.ev.Outcome, tc.ev.Signature())
			require.Equal(t, tc.failed, tc.ev.Failed())
			want := LoopEvent{Signature: key + ":" + tc.ev.Outcome, Key: key, Failed: tc.failed}
			if tc.failed {
				want.Class = tc.ev.Outcome
			}
			require.Equal(t, want, tc.ev.LoopEvent())
		})
	}
}

// Pinned values: recorded histories hold these strings, so they must
// never change.
func TestCallEventGolden(t *testing.T) {
	cases := []struct {
		ev        CallEvent
		key, sig  string
		blockedAs string
	}{
		{
			CallEvent{Tool: "search", Args: json.RawMessage(`{"q":"x"}`), Outcome: "ok"},
			"4b3ce0bb2c6ed572", "4b3ce0bb2c6ed572:ok", "4b3ce0bb2c6ed572",
		},
		{
			CallEvent{Where: "fetch", Tool: "http_get", Args: json.RawMessage(`{"url":"u","request_id":"1"}`), Outcome: "timeout"},
			"e361b118d3969fc0", "e361b118d3969fc0:timeout", BlockKey("http_get", []byte(`{"url":"u"}`), nil),
		},
	}
	for _, tc := range cases {
		require.Equal(t, tc.key, tc.ev.Key())
		require.Equal(t, tc.sig, tc.ev.Signature())
		require.Equal(t, tc.blockedAs, BlockKey(tc.ev.Tool, tc.ev.Args, nil))
	}
}

// Volatile fields and key order do not make a call new; blank arguments
// are the empty object.
func TestCallEventSameCall(t *testing.T) {
	cases := []struct {
		name string
		a, b json.RawMessage
		same bool
	}{
		{"request_id ignored", json.RawMessage(`{"q":"x","request_id":"1"}`), json.RawMessage(`{"q":"x","request_id":"2"}`), true},
		{"nested volatile ignored", json.RawMessage(`{"q":{"timestamp":1,"v":2}}`), json.RawMessage(`{"q":{"v":2,"timestamp":3}}`), true},
		{"key order ignored", json.RawMessage(`{"a":1,"b":2}`), json.RawMessage(`{ "b":2, "a":1 }`), true},
		{"blank is {}", nil, json.RawMessage(`{}`), true},
		{"spaces are {}", json.RawMessage("  \n"), json.RawMessage(`{}`), true},
		{"other arguments differ", json.RawMessage(`{"q":"x"}`), json.RawMessage(`{"q":"y"}`), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := CallEvent{Tool: "search", Args: tc.a, Outcome: "ok"}
			b := CallEvent{Tool: "search", Args: tc.b, Outcome: "ok"}
			require.Equal(t, tc.same, a.Key() == b.Key())
			require.Equal(t, tc.same, a.Signature() == b.Signature())
			require.Equal(t, tc.same, BlockKey("search", tc.a, nil) == BlockKey("search", tc.b, nil))
		})
	}
	// The graph node and the outcome are part of the identity.
	base := CallEvent{Tool: "search", Args: json.RawMessage(`{"q":"x"}`), Outcome: "ok"}
	at := base
	at.Where = "n1"
	require.NotEqual(t, base.Key(), at.Key())
	failed := base
	failed.Outcome = "transient"
	require.Equal(t, base.Key(), failed.Key())
	require.NotEqual(t, base.Signature(), failed.Signature())
	require.Equal(t, base.Key(), BlockKey("search", at.Args, nil), "the blocklist ignores where")
}

func TestNodeEvents(t *testing.T) {
	llm := Signature("think", "llm", `[]`, "hello")
	require.Equal(t, "f2bcbfdd5ab51d10", llm, "pinned: recorded histories hold it")
	cases := []struct {
		name string
		got  LoopEvent
		want LoopEvent
	}{
		{"human replied", HumanNodeEvent("ask", true), LoopEvent{Signature: "human:ask:ok", Key: "human:ask"}},
		{"human timed out", HumanNodeEvent("ask", false), LoopEvent{Signature: "human:ask:timeout", Key: "human:ask", Failed: true}},
		{"llm content", LLMNodeEvent("think", `[]`, "hello", "content"), LoopEvent{Signature: llm + ":content", Key: llm}},
		{"llm calls ok", LLMNodeEvent("think", `[]`, "hello", "ok"), LoopEvent{Signature: llm + ":ok", Key: llm}},
		{"llm calls failed", LLMNodeEvent("think", `[]`, "hello", "failed"), LoopEvent{Signature: llm + ":failed", Key: llm, Failed: true}},
		{"llm writes changed nothing", LLMNodeEvent("think", `[]`, "hello", "no_op"), LoopEvent{Signature: llm + ":no_op", Key: llm, Failed: true, Class: "no_op"}},
		{"unknown tool", UnknownToolEvent("fetch"), LoopEvent{Signature: "fetch:unknown", Key: "fetch", Failed: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.got)
		})
	}
	require.NotEqual(t, LLMNodeEvent("think", `[{"tool":"a"}]`, "", "ok").Key, LLMNodeEvent("think", `[{"tool":"b"}]`, "", "ok").Key,
		"new calls at an llm node are progress")
}

func TestResets(t *testing.T) {
	last := []string{"a:ok", "b:transient"}
	cases := []struct {
		name string
		ev   LoopEvent
		want bool
	}{
		{"a new success", LoopEvent{Signature: "c:ok"}, true},
		{"a success of the last cycle", LoopEvent{Signature: "a:ok"}, false},
		{"a failure", LoopEvent{Signature: "c:transient", Failed: true}, false},
		{"a failure of the last cycle", LoopEvent{Signature: "b:transient", Failed: true}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Resets(tc.ev, last))
		})
	}
	require.True(t, Resets(LoopEvent{Signature: "a:ok"}, nil), "no loop yet: any success")
}

func TestResetsInGraph(t *testing.T) {
	cycle := []string{"A", "B", "C"}
	cases := []struct {
		name  string
		ev    LoopEvent
		where string
		want  bool
	}{
		{"a success inside the cycle, new signature", LoopEvent{Signature: "B:ok"}, "B", false},
		{"a success off the cycle", LoopEvent{Signature: "D:ok"}, "D", true},
		{"a failure off the cycle", LoopEvent{Signature: "D:transient", Failed: true}, "D", false},
		{"a failure inside the cycle", LoopEvent{Signature: "B:transient", Failed: true}, "B", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ResetsInGraph(tc.ev, tc.where, cycle))
		})
	}
	require.True(t, ResetsInGraph(LoopEvent{Signature: "A:ok"}, "A", nil), "no loop yet: any success")
}
