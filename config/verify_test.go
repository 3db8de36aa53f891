package config

import (
	"testing"

	"github.com/expr-lang/expr"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestVerifyReadsBothForms(t *testing.T) {
	f, err := parse(withTool(
		"  - name: book",
		"    http: {url: http://t/book}",
		"    effect: write",
		"    result_schema: {type: object, required: [id]}",
		"    verify: {tool: other, args: {id: \"†result.id\", who: \"†args.name\"}, expect: \"result.state == 'confirmed'\"}",
		"  - name: pay",
		"    http: {url: http://t/pay}",
		"    effect: write",
		"    repeatable: true",
		"    verify: \"result.status == 'paid' && result.amount == args.amount\""))
	require.NoError(t, err)
	book, _ := f.Tool("book")
	require.Equal(t, &Verify{Tool: "other", Args: map[string]any{"id": "†result.id", "who": "†args.name"}, Expect: "result.state == 'confirmed'"}, book.Verify)
	require.True(t, book.Verify.ReadBack())
	require.Equal(t, "result.state == 'confirmed'", book.Verify.Condition())
	require.Equal(t, map[string]any{"type": "object", "required": []any{"id"}}, book.ResultSchema)
	pay, _ := f.Tool("pay")
	require.Equal(t, &Verify{Expr: "result.status == 'paid' && result.amount == args.amount"}, pay.Verify)
	require.False(t, pay.Verify.ReadBack())
	require.True(t, pay.Repeatable)

	// Written back out, each reads the same.
	for _, v := range []*Verify{book.Verify, pay.Verify} {
		out, err := yaml.Marshal(v)
		require.NoError(t, err)
		var back Verify
		require.NoError(t, yaml.Unmarshal(out, &back))
		require.Equal(t, v, &back)
	}
}

func TestVerifyConditionSeesArgsAndResult(t *testing.T) {
	prog, err := CompileVerify("result.status == 'booked' && result.date == args.date")
	require.NoError(t, err)
	for _, tc := range []struct {
		result any
		want   bool
	}{
		{map[string]any{"status": "booked", "date": "2026-12-01"}, true},
		{map[string]any{"status": "booked", "date": "2026-12-02"}, false},
		{map[string]any{"status": "pending", "date": "2026-12-01"}, false},
	} {
		got, err := expr.Run(prog, VerifyEnv{Args: map[string]any{"date": "2026-12-01"}, Result: tc.result, Meter: &tally{}})
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "%v", tc.result)
	}
}

func TestVerifyRefused(t *testing.T) {
	tool := func(lines ...string) string {
		return withTool(append([]string{"  - name: book", "    http: {url: http://t/book}", "    effect: write"}, lines...)...)
	}
	writer := func(verify string) string {
		return withTool("  - name: book", "    http: {url: http://t/book}", "    effect: write", "    verify: "+verify,
			"  - name: undo", "    http: {url: http://t/undo}", "    effect: write",
			"  - name: sync", "    http: {url: http://t/sync}", "    effect: idempotent")
	}
	runProblems(t, []problemCase{
		{"does not compile", tool(`    verify: "result.status =="`), 6, "tools[0].verify", "unexpected token EOF"},
		{"not a bool", tool(`    verify: "len(args) + 1"`), 6, "tools[0].verify", "expected bool"},
		{"a field outside args and result", tool(`    verify: "state.done == true"`), 6, "tools[0].verify", "unknown name state"},
		{"now() is not deterministic", tool(`    verify: "now() > date('2020-01-01')"`), 6, "tools[0].verify", "unknown name now"},
		{"map order is not deterministic", tool(`    verify: "len(keys(result)) > 0"`), 6, "tools[0].verify", "unknown name keys"},
		{"empty", tool(`    verify: ""`), 6, "tools[0].verify", "empty: an expression over args and result"},
		{"not a string or mapping", tool(`    verify: [a, b]`), 6, "tools[0].verify", "invalid verify: want an expression (a string) or a read-back {tool, args, expect}"},
		{"unknown read-back field", tool(`    verify: {tool: other, expect: "true", when: x}`), 6, "tools[0].verify", "field when not found in verify (a read-back has tool, args and expect)"},
		{"unknown read-back tool", tool(`    verify: {tool: nope, expect: "true"}`), 6, "tools[0].verify.tool", `unknown tool "nope" (known: book, other)`},
		{"its own read-back", tool(`    verify: {tool: book, expect: "true"}`), 6, "tools[0].verify.tool", "a tool cannot read back its own calls"},
		{"a write tool reads back", writer(`{tool: undo, expect: "true"}`), 6, "tools[0].verify.tool", "the read-back undo has effect write: a read-back must only read"},
		{"an idempotent tool reads back", writer(`{tool: sync, expect: "true"}`), 6, "tools[0].verify.tool", "the read-back sync has effect idempotent"},
		{"read-back without expect", tool(`    verify: {tool: other, args: {id: "†result.id"}}`), 6, "tools[0].verify.expect", "missing: the expression the read-back's result must meet"},
		{"read-back expect does not compile", tool(`    verify: {tool: other, expect: "result.state =="}`), 6, "tools[0].verify.expect", "unexpected token EOF"},
		{"read-back names the run's state", tool(`    verify: {tool: other, args: {id: "†state.id"}, expect: "true"}`), 6, "tools[0].verify.args",
			`/id: malformed reference: "†state.id": a reference starts with "†args." or "†result."`},
		{"result_schema not a schema", tool(`    result_schema: {type: 12}`), 6, "tools[0].result_schema", `tool "book" result_schema`},
	})
}

func TestReadBackToolIsResolvedNotOffered(t *testing.T) {
	f, err := parse(y(
		"model: {base_url: http://m/v1, name: m}",
		"tools:",
		"  - {name: book, http: {url: http://t/book}, effect: write, verify: {tool: get_booking, args: {id: \"†result.id\"}, expect: \"result.ok == true\"}}",
		"  - {name: get_booking, http: {url: http://t/get}}",
		"agents:",
		"  - {name: x, tools: [book]}"))
	require.NoError(t, err)
	r, err := f.Resolve("x", nil)
	require.NoError(t, err)
	_, ok := r.Tool("get_booking")
	require.True(t, ok, "a run can call its tools' read-backs")
	_, offered := r.AgentTool("get_booking")
	require.False(t, offered, "a read-back is not offered to the model")
}
