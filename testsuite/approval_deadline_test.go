package testsuite

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// approval: {timeout, then} on the real server, in both shapes: nobody
// answers a payment's approval, and after its few seconds the deadline
// decides. then: approve runs the payment once (counted at the tool
// server); then: reject never runs it. The approve histories are kept.

func payDeadlineConfig(url, then, graph string) string {
	return `
model: { base_url: "{{MODEL}}", name: small }
tools:
  - { name: pay, http: { method: POST, url: "` + url + `/pay" }, effect: write, approval: { timeout: 3s, then: ` + then + ` },
      parameters: { type: object, required: [amount], properties: { amount: { type: integer } } } }
agents:
  - name: payer
    instructions: Pay.
    tools: [pay]
` + graph
}

const payDeadlineGraph = `    graph:
      start: P
      nodes:
        P: { tool: pay, args: { amount: 5000 }, output_path: "†state.paid" }
        E: { end: true, output: "†state.paid" }
      edges: [ { from: P, to: E } ]
`

// paidByDeadline is a run of payer whose approval's deadline decided.
type paidByDeadline struct {
	tools *toolServer
	run   client.WorkflowRun
	res   *workflows.AgentResult
	err   error
	trace signals.Trace
}

// payByDeadline runs payer in shape ("free-form" or "graph") with the
// deadline deciding then, to its end.
func payByDeadline(t *testing.T, then, shape string) paidByDeadline {
	t.Helper()
	tools := payServer(t)
	graph, script := "", map[string]scriptedmodel.Script{"small": scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(scriptedmodel.NewCall("pay", map[string]int{"amount": 5000})),
		scriptedmodel.Reply("done"),
	)}
	if shape == "graph" {
		graph, script = payDeadlineGraph, nil
	}
	s := newStack(t, payDeadlineConfig(tools.URL, then, graph), script)
	run := s.start(workflows.AgentInput{Agent: "payer", Task: "pay"})
	pending := s.pendingApproval(run)
	require.Equal(t, "pay", pending.Tool)
	require.False(t, pending.WaitingSince.IsZero())
	require.Equal(t, "3s", pending.Deadline.Sub(pending.WaitingSince).String(), "due after the approval's own timeout")
	res, err := s.result(run)
	return paidByDeadline{tools: tools, run: run, res: res, err: err, trace: s.trace(run)}
}

func TestApprovalDeadlineApprovesOnTheServer(t *testing.T) {
	t.Parallel()
	for _, shape := range []string{"free-form", "graph"} {
		t.Run(shape, func(t *testing.T) {
			p := payByDeadline(t, "approve", shape)
			require.NoError(t, p.err)
			require.Equal(t, "completed", string(p.res.Status))
			require.Len(t, p.tools.requests("/pay"), 1, "the payment ran once")
			require.JSONEq(t, `{"amount": 5000}`, p.tools.requests("/pay")[0].Body)
			approvals := nodesOf(p.trace, signals.KindApproval)
			require.Len(t, approvals, 1)
			require.Equal(t, "approved by the deadline: no decision within 3s", approvals[0].Note)
			var out map[string]any
			require.NoError(t, json.Unmarshal(approvals[0].Output, &out))
			require.Equal(t, true, out["by_deadline"], "the deadline approved, not a person")
			recordAndReplay(t, p.run, "approval_deadline_approve_"+strings.ReplaceAll(shape, "-", "_"))
		})
	}
}

func TestApprovalDeadlineRejectsOnTheServer(t *testing.T) {
	t.Parallel()
	for _, shape := range []string{"free-form", "graph"} {
		t.Run(shape, func(t *testing.T) {
			p := payByDeadline(t, "reject", shape)
			require.Empty(t, p.tools.requests("/pay"), "the payment never ran")
			approvals := nodesOf(p.trace, signals.KindApproval)
			require.Len(t, approvals, 1)
			require.Equal(t, "rejected by the deadline: no approval decision within 3s", approvals[0].Note)
			require.Contains(t, callsOf(p.trace, "pay")[0].Error, "rejected by the deadline")
		})
	}
}

// The deadline is a durable timer of the server: the worker that began
// the wait is killed, another starts, and the deadline still approves the
// payment, which runs once.
func TestApprovalDeadlineSurvivesAWorkerRestart(t *testing.T) {
	t.Parallel()
	tools := payServer(t)
	cfg := strings.Replace(payDeadlineConfig(tools.URL, "approve", payDeadlineGraph), "{{MODEL}}", "http://127.0.0.1:1/v1", 1)
	workers := newWorkerProcesses(t, strings.Replace(cfg, "timeout: 3s", "timeout: 8s", 1), "deadline")
	first := workers.start()
	run := workers.run(workflows.AgentInput{Agent: "payer", Task: "pay"})
	require.Eventually(t, func() bool {
		v, err := serverClient.QueryWorkflow(context.Background(), run.GetID(), "", signals.QueryStatus)
		var st signals.Status
		return err == nil && v.Get(&st) == nil && len(st.PendingApprovals) == 1
	}, 30*time.Second, 100*time.Millisecond, "the payment waits for approval")
	require.NoError(t, first.Process.Kill()) // SIGKILL, mid-wait
	_ = first.Wait()
	workers.start()

	res := awaitResult(t, run, 90*time.Second)
	require.Equal(t, "completed", string(res.Status))
	require.Len(t, tools.requests("/pay"), 1, "the payment ran once")
	v, err := serverClient.QueryWorkflow(context.Background(), run.GetID(), "", signals.QueryTrace)
	require.NoError(t, err)
	var tr signals.Trace
	require.NoError(t, v.Get(&tr))
	approvals := nodesOf(tr, signals.KindApproval)
	require.Len(t, approvals, 1)
	require.Equal(t, "approved by the deadline: no decision within 8s", approvals[0].Note)
}
