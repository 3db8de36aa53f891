package testsuite

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// approval: {by: [finance, ops], timeout, then: escalate} on the real
// server, in both shapes: finance is asked first (ops's approval is
// refused), the server's durable timer passes finance's 8 seconds, ops
// is asked too, and carol of ops approves through `unstuck approve --as`:
// the payment runs once. The histories are kept.

func payEscalateConfig(url, graph string) string {
	return `
model: { base_url: "{{MODEL}}", name: small }
tools:
  - { name: pay, http: { method: POST, url: "` + url + `/pay" }, effect: write,
      approval: { by: [finance, ops], timeout: 8s, then: escalate },
      parameters: { type: object, required: [amount], properties: { amount: { type: integer } } } }
agents:
  - name: payer
    instructions: Pay.
    tools: [pay]
` + graph
}

func TestApprovalEscalatesToTheNextGroupOnTheServer(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells, parityCell{capability: "a deadline escalates to the next group", shape: shape, run: func(t *testing.T) {
			escalateToOps(t, shape)
		}})
	}
	runParity(t, cells)
}

func escalateToOps(t *testing.T, shape string) {
	tools, ppl := payServer(t), newPeople(t)
	unstuck := filepath.Join(binaries(t), "unstuck") // built before the clock starts
	graphYAML, script := "", map[string]scriptedmodel.Script{"small": scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(scriptedmodel.NewCall("pay", map[string]int{"amount": 5000})),
		scriptedmodel.Reply("done"),
	)}
	if shape == graph {
		graphYAML, script = payDeadlineGraph, nil
	}
	s := newStack(t, payEscalateConfig(tools.URL, graphYAML)+ppl.yaml(), script)
	run := s.start(workflows.AgentInput{Agent: "payer", Task: "pay"})
	pending := s.pendingApproval(run)
	require.Equal(t, []string{"finance"}, pending.Answering, "finance is asked first")
	require.ErrorContains(t, s.update(run, signals.Approve, ppl.approval(t, run, "carol", "carol", pending.CallID, signals.DecisionApprove)),
		"carol is not in finance, who answer for pay")

	require.Eventually(t, func() bool {
		st := s.status(run)
		return len(st.PendingApprovals) == 1 && st.PendingApprovals[0].Escalations == 1
	}, 30*time.Second, 200*time.Millisecond, "finance's 8s pass on the server's timer and ops is asked")
	st := s.status(run)
	require.Equal(t, []string{"finance", "ops"}, st.PendingApprovals[0].Answering)
	require.Empty(t, tools.requests("/pay"), "nothing paid while it waits")

	out, err := exec.Command(unstuck, "approve", run.GetID(), "--call-id", pending.CallID,
		"--decision", "approve", "--as", "carol", "--key", ppl.file("carol"), "--address", serverAddress).CombinedOutput()
	require.NoError(t, err, string(out))
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.Len(t, tools.requests("/pay"), 1, "paid once, on ops's approval")
	approvals := nodesOf(s.trace(run), signals.KindApproval)
	require.Len(t, approvals, 1)
	require.Equal(t, "carol", approvals[0].By)
	recordAndReplay(t, run, "approval_escalate_"+strings.ReplaceAll(shape, "-", "_"))
}
