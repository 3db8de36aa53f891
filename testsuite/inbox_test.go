package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"golang.org/x/net/html"

	"github.com/unstuck-dev/unstuck/approvalinbox"
	"github.com/unstuck-dev/unstuck/console"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The inbox on the real server, in both run shapes: three free-form runs
// and three graph runs each wait for approval of an inbox_pay call of one
// shape; `unstuck inbox` lists them as one group, as does the console's
// /approvals. `unstuck approve --group` refuses an unknown group (exit 2),
// rejects a chosen call, then approves the rest while one call was settled
// meanwhile and one run ended: both are skipped and counted, and each
// approved run records its own approval node by the approver, naming the
// group decision. The tool server sees each approved call once and the
// others never.
func TestInboxAndGroupApprovalThroughTheCLI(t *testing.T) {
	t.Parallel()
	unstuck := filepath.Join(binaries(t), "unstuck")
	tools := payServer(t)
	cfg := `
model: { base_url: "{{MODEL}}", name: inbox }
tools:
  - { name: inbox_pay, http: { method: POST, url: "` + tools.URL + `/pay" }, effect: write, approval: always,
      parameters: { type: object, properties: { amount: { type: integer }, to: { type: string } } } }
agents:
  - { name: inbox-payer, instructions: Pay., tools: [inbox_pay] }
  - name: inbox-graph-payer
    instructions: Pay.
    tools: [inbox_pay]
    graph:
      start: P
      nodes:
        P: { tool: inbox_pay, args: { amount: "†input.amount", to: "†input.to" }, output_path: "†state.paid" }
        E: { end: true, output: "†state.paid" }
      edges: [ { from: P, to: E } ]
`
	pay := func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) == 0 {
			var amount int
			_, _ = fmt.Sscanf(scriptedmodel.Task(req), "pay %d", &amount)
			return scriptedmodel.CallTurn("inbox_pay", map[string]any{"amount": amount, "to": "acme"})
		}
		return scriptedmodel.Reply("paid")
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"inbox": pay})
	var runs []client.WorkflowRun
	for i := range 3 {
		runs = append(runs, s.start(workflows.AgentInput{Agent: "inbox-payer", Task: fmt.Sprintf("pay %d", 100+i)}))
		runs = append(runs, s.start(workflows.AgentInput{Agent: "inbox-graph-payer", Task: "pay",
			Input: json.RawMessage(fmt.Sprintf(`{"amount": %d, "to": "acme"}`, 200+i))}))
	}
	cli := func(args ...string) cmdOutput {
		return runCommand(t, exec.Command(unstuck, append(args, "--address", serverAddress)...))
	}
	group := approvalinbox.GroupID("inbox_pay", "{amount: number, to: string}")

	// The visibility store catches up with the runs' phase.
	var listed struct {
		Calls  int `json:"calls"`
		Groups []struct {
			ID, Tool, Shape string
			Count           int
			Calls           []struct{ Ref, Agent string }
		}
	}
	require.Eventually(t, func() bool {
		out := cli("inbox", "--tool", "inbox_pay", "--json")
		return out.code == 0 && json.Unmarshal([]byte(out.stdout), &listed) == nil && listed.Calls == 6
	}, 30*time.Second, 200*time.Millisecond)
	require.Len(t, listed.Groups, 1)
	g := listed.Groups[0]
	require.Equal(t, group, g.ID)
	require.Equal(t, "{amount: number, to: string}", g.Shape)
	require.Equal(t, 6, g.Count)
	agents := map[string]int{}
	for _, c := range g.Calls {
		agents[c.Agent]++
	}
	require.Equal(t, map[string]int{"inbox-payer": 3, "inbox-graph-payer": 3}, agents, "both run shapes in one group")
	// Each run lists its call waiting in its memo, which the listing read.
	for _, run := range runs[:2] {
		desc, err := serverClient.DescribeWorkflowExecution(context.Background(), run.GetID(), "")
		require.NoError(t, err)
		var memo signals.WaitingMemo
		require.NoError(t, converter.GetDefaultDataConverter().FromPayload(desc.GetWorkflowExecutionInfo().GetMemo().GetFields()[signals.MemoWaiting], &memo))
		require.Len(t, memo.Calls, 1, run.GetID())
		require.Equal(t, "inbox_pay", memo.Calls[0].Tool)
		require.Equal(t, "{amount: number, to: string}", memo.Calls[0].Shape)
		require.False(t, memo.Calls[0].Since.IsZero())
	}
	text := cli("inbox", "--tool", "inbox_pay")
	require.Equal(t, 0, text.code, text.stderr)
	require.Regexp(t, group+`\s+inbox_pay\s+6\s+\S+\s+\{amount: number, to: string\}`, text.stdout)
	require.Contains(t, text.stdout, "6 calls in 1 group; the oldest has waited")
	require.Contains(t, cli("inbox", "--agent", "inbox-graph-payer", "--tool", "inbox_pay").stdout, group+"  inbox_pay  3")

	// The console's /approvals shows the same group.
	h, err := console.New(serverClient, console.Options{Namespace: "default"})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	page := fetch(t, srv.URL+"/approvals?tool=inbox_pay")
	section := findElement(page, func(n *html.Node) bool { return n.Data == "section" && attrOf(n, "data-group-id") == group })
	require.NotNil(t, section)
	require.Equal(t, "6", attrOf(section, "data-count"))

	unknown := cli("approve", "--group", "0123456789", "--decision", "approve", "--by", "ana")
	require.Equal(t, 2, unknown.code, unknown.stdout)
	require.Contains(t, unknown.stderr, "no call waits in group 0123456789")

	refs := map[string]string{} // workflow id -> ref
	for _, c := range g.Calls {
		refs[strings.SplitN(c.Ref, "/", 2)[0]] = c.Ref
	}
	rejected, settled, ended, rest := runs[0], runs[1], runs[2], runs[3:]
	out := cli("approve", "--group", group, "--decision", "reject", "--by", "bob", "--reason", "not this one", "--only", refs[rejected.GetID()])
	require.Equal(t, 0, out.code, out.stdout+out.stderr)
	require.Contains(t, out.stdout, "1 rejected, 0 skipped, 0 failed")

	// Meanwhile one call is approved on its own and one run ends.
	one := strings.SplitN(refs[settled.GetID()], "/", 2)[1]
	require.Equal(t, 0, cli("approve", settled.GetID(), "--call-id", one, "--decision", "approve", "--by", "carol").code)
	require.NoError(t, serverClient.TerminateWorkflow(context.Background(), ended.GetID(), "", "ended between listing and approving"))

	var named []string
	for _, run := range runs[1:] {
		named = append(named, refs[run.GetID()])
	}
	out = cli("approve", "--group", group, "--decision", "approve", "--by", "ana", "--only", strings.Join(named, ","))
	require.Equal(t, 0, out.code, out.stdout+out.stderr)
	require.Contains(t, out.stdout, "3 approved, 2 skipped, 0 failed")
	require.Contains(t, out.stdout, "skipped "+refs[settled.GetID()]+": ")
	require.Contains(t, out.stdout, "skipped "+refs[ended.GetID()]+": ")

	// The group is gone now that nothing waits in it.
	gone := cli("approve", "--group", group, "--decision", "approve", "--by", "ana")
	require.Equal(t, 2, gone.code, gone.stdout)
	require.Contains(t, gone.stderr, "all its calls were settled meanwhile")

	for _, run := range append([]client.WorkflowRun{settled}, rest...) {
		_, err := s.result(run)
		require.NoError(t, err, run.GetID())
		approvals := nodesOf(s.trace(run), signals.KindApproval)
		require.Len(t, approvals, 1, run.GetID())
		var req signals.ApproveRequest
		require.NoError(t, json.Unmarshal(approvals[0].Args, &req), string(approvals[0].Args))
		if run == settled {
			require.Equal(t, "carol", req.By)
			continue
		}
		require.Equal(t, "ana", req.By)
		require.Equal(t, "group "+group+" approved by ana", req.Reason)
	}
	_, err = s.result(rejected)
	require.NoError(t, err)
	approvals := nodesOf(s.trace(rejected), signals.KindApproval)
	require.Len(t, approvals, 1)
	require.Contains(t, string(approvals[0].Args), "group "+group+" rejected by bob: not this one")

	// A run of each shape that listed its calls in its memo is kept, so
	// the replay test covers the memo's change (inbox-memo).
	kept := map[string]bool{}
	for _, run := range rest {
		shape := map[string]string{"inbox-payer": "free_form", "inbox-graph-payer": "graph"}[s.status(run).Agent]
		if shape != "" && !kept[shape] {
			kept[shape] = true
			recordAndReplay(t, run, "inbox_memo_"+shape)
		}
	}
	require.Len(t, kept, 2, "a run of each shape was answered by the group")

	perRun := map[string]int{}
	for _, r := range tools.requests("/pay") {
		perRun[r.WorkflowID]++
	}
	want := map[string]int{settled.GetID(): 1}
	for _, run := range rest {
		want[run.GetID()] = 1
	}
	require.Equal(t, want, perRun, "each approved call ran once; the rejected and the ended ones never")
}
