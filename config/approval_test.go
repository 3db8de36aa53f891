package config

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func approvalTool(lines ...string) string {
	return withTool(append([]string{"  - name: pay", "    http: {url: http://t/pay}", "    effect: write"}, lines...)...)
}

func TestApprovalReadsEachForm(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  Approval
	}{
		{"unset is never", nil, ApprovalNever},
		{"never", []string{"    approval: never"}, ApprovalNever},
		{"always", []string{"    approval: always"}, ApprovalAlways},
		{"a condition, inline", []string{`    approval: {when: "args.amount > 1000"}`}, Approval{When: "args.amount > 1000"}},
		{"a condition, as a block", []string{"    approval:", `      when: "args.amount > state.limit || input.vip == false"`},
			Approval{When: "args.amount > state.limit || input.vip == false"}},
		{"a deadline alone asks always, rejecting by default", []string{"    approval: {timeout: 4h}"},
			Approval{Mode: "always", Deadline: Deadline{Timeout: Duration(4 * time.Hour)}}},
		{"a condition with a deadline that approves", []string{"    approval:", `      when: "args.amount > 10"`, "      timeout: 90s", "      then: approve"},
			Approval{When: "args.amount > 10", Deadline: Deadline{Timeout: Duration(90 * time.Second), Then: ThenApprove}}},
		{"then: reject, written", []string{"    approval: {timeout: 1h, then: reject}"},
			Approval{Mode: "always", Deadline: Deadline{Timeout: Duration(time.Hour), Then: ThenReject}}},
		{"by alone asks for every call", []string{"    approval: {by: [finance, ops]}"},
			Approval{Mode: "always", People: &Approvers{By: []string{"finance", "ops"}}}},
		{"a condition, by and approvers", []string{`    approval: {when: "args.amount > 1", by: [finance], approvers: 2}`},
			Approval{When: "args.amount > 1", People: &Approvers{By: []string{"finance"}, Count: 2}}},
		{"groups that escalate", []string{"    approval: {by: [finance, ops], timeout: 4h, then: escalate}"},
			Approval{Mode: "always", People: &Approvers{By: []string{"finance", "ops"}}, Deadline: Deadline{Timeout: Duration(4 * time.Hour), Then: ThenEscalate}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parse(approvalTool(tc.lines...) + peopleBlock)
			require.NoError(t, err)
			pay, _ := f.Tool("pay")
			require.Equal(t, tc.want, pay.Approval)
			require.Equal(t, tc.want.Always(), pay.Approval.Always())
			require.Equal(t, tc.want.When != "", pay.Approval.Conditional())

			out, err := yaml.Marshal(pay.Approval)
			require.NoError(t, err)
			var back Approval
			require.NoError(t, yaml.Unmarshal(out, &back))
			require.Equal(t, pay.Approval, back, "written back out, it reads the same")
		})
	}
}

func TestApprovalRefused(t *testing.T) {
	runProblems(t, []problemCase{
		{"an unknown mode", approvalTool("    approval: sometimes"), 6, "tools[0].approval", `invalid approval "sometimes" (want one of never, always)`},
		{"a list", approvalTool("    approval: [always]"), 6, "tools[0].approval", "invalid approval: want never, always or a block {when, by, approvers, timeout, then}"},
		{"then without a timeout", approvalTool("    approval:", "      then: approve"), 7, "tools[0].approval.then", "approval.then needs approval.timeout"},
		{"an unknown then", approvalTool("    approval: {timeout: 4h, then: ignore}"), 6, "tools[0].approval.then", `invalid approval.then "ignore" (want one of reject, approve, escalate)`},
		{"escalate without by", approvalTool("    approval: {timeout: 4h, then: escalate}"), 6, "tools[0].approval.then", "then: escalate needs by: (groups, in escalation order)"},
		{"escalate with one group", approvalTool("    approval: {by: [finance], timeout: 4h, then: escalate}") + peopleBlock, 6, "tools[0].approval.then", "then: escalate needs two groups or more in by: (finance alone has no one to escalate to)"},
		{"then not a string", approvalTool("    approval: {timeout: 4h, then: [approve]}"), 6, "tools[0].approval", "invalid approval.then: got !!seq"},
		{"a zero timeout", approvalTool("    approval: {timeout: 0s}"), 6, "tools[0].approval", "approval.timeout must be more than 0"},
		{"a negative timeout", approvalTool("    approval: {timeout: -1h, then: approve}"), 6, "tools[0].approval", "approval.timeout must be more than 0"},
		{"a timeout that is not a duration", approvalTool("    approval: {timeout: soon}"), 6, "tools[0].approval", `invalid approval.timeout "soon": want a duration such as 30m or 4h`},
		{"an unknown key", approvalTool("    approval:", "      if: x"), 7, "tools[0].approval", "field if not found in approval (the block form has when, by, approvers, timeout and then)"},
		{"approvers without by", approvalTool("    approval:", "      approvers: 2"), 7, "tools[0].approval", "approval.approvers needs approval.by"},
		{"approvers below one", approvalTool("    approval: {by: [finance], approvers: 0}"), 6, "tools[0].approval", `invalid approval.approvers "0"`},
		{"by not a list", approvalTool("    approval: {by: finance}"), 6, "tools[0].approval", "invalid approval.by: want a list of groups"},
		{"empty when", approvalTool(`    approval: {when: ""}`), 6, "tools[0].approval", "approval.when is empty"},
		{"no when", approvalTool(`    approval: {}`), 6, "tools[0].approval", "approval.when is empty"},
		{"when not a string", approvalTool(`    approval: {when: [a]}`), 6, "tools[0].approval", "invalid approval.when: want an expression (a string)"},
		{"does not compile", approvalTool(`    approval: {when: "args.amount >"}`), 6, "tools[0].approval.when", "unexpected token EOF"},
		{"not a bool", approvalTool(`    approval: {when: "len(args) + 1"}`), 6, "tools[0].approval.when", "expected bool"},
		{"a name outside args, state and input", approvalTool(`    approval: {when: "result.ok"}`), 6, "tools[0].approval.when", "unknown name result"},
		{"now() is not deterministic", approvalTool(`    approval: {when: "now() > date('2020-01-01')"}`), 6, "tools[0].approval.when", "unknown name now"},
	})
}

// The resolved spec carries approval in every run's state, so in recorded
// histories: the modes keep the JSON they always had, and each form reads
// back as it was.
func TestApprovalJSON(t *testing.T) {
	for _, tc := range []struct {
		tool Tool
		want string
	}{
		{Tool{Name: "a"}, `{"name":"a"}`},
		{Tool{Name: "a", Approval: ApprovalNever}, `{"name":"a","approval":"never"}`},
		{Tool{Name: "a", Approval: ApprovalAlways}, `{"name":"a","approval":"always"}`},
		{Tool{Name: "a", Approval: Approval{When: "args.n > 2"}}, `{"name":"a","approval":{"when":"args.n \u003e 2"}}`},
		{Tool{Name: "a", Approval: Approval{Mode: "always", Deadline: Deadline{Timeout: Duration(4 * time.Hour)}}}, `{"name":"a","approval":{"mode":"always","timeout":"4h0m0s"}}`},
		{Tool{Name: "a", Approval: Approval{When: "args.n > 2", Deadline: Deadline{Timeout: Duration(time.Minute), Then: ThenApprove}}}, `{"name":"a","approval":{"when":"args.n \u003e 2","timeout":"1m0s","then":"approve"}}`},
		{Tool{Name: "a", Approval: Approval{Mode: "always", People: &Approvers{By: []string{"finance", "ops"}}}}, `{"name":"a","approval":{"by":["finance","ops"]}}`},
		{Tool{Name: "a", Approval: Approval{When: "true", People: &Approvers{By: []string{"finance"}, Count: 2}}}, `{"name":"a","approval":{"when":"true","by":["finance"],"approvers":2}}`},
		{Tool{Name: "a", Approval: Approval{Mode: "always", People: &Approvers{By: []string{"finance", "ops"}}, Deadline: Deadline{Timeout: Duration(time.Hour), Then: ThenEscalate}}},
			`{"name":"a","approval":{"by":["finance","ops"],"timeout":"1h0m0s","then":"escalate"}}`},
	} {
		got, err := json.Marshal(tc.tool)
		require.NoError(t, err)
		require.Equal(t, tc.want, string(got))
		var back Tool
		require.NoError(t, json.Unmarshal(got, &back))
		require.Equal(t, tc.tool.Approval, back.Approval)
		again, err := json.Marshal(back)
		require.NoError(t, err)
		require.Equal(t, string(got), string(again), "byte for byte after a round trip")
	}
	var a Approval
	require.ErrorContains(t, json.Unmarshal([]byte(`[1]`), &a), "approval: want a mode")
}
