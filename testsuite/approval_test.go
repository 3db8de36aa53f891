package testsuite

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A write tool with approval: always waits for a person; `unstuck status`
// lists it, a wrong decision is refused, and `unstuck approve --decision
// modify` runs it with the person's arguments.
//
// Beside make test's other layers it can take over 30 s: the first tests
// to call binaries wait for its one build of the worker and the CLI.
func TestApprovalThroughTheCLI(t *testing.T) {
	t.Parallel()
	unstuck := filepath.Join(binaries(t), "unstuck")
	tools := newBookingServer(t, "booked")
	s := bookerStack(t, "approvals", tools.URL)
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "book a seat"})
	cli := func(args ...string) (string, error) {
		args = append(args, "--address", serverAddress)
		out, err := exec.Command(unstuck, args...).CombinedOutput()
		return string(out), err
	}

	require.Eventually(t, func() bool { p, _ := s.phase(run); return p == signals.PhaseAwaitingApproval }, 20*time.Second, 100*time.Millisecond)
	st := s.status(run)
	require.Len(t, st.PendingApprovals, 1)
	callID := st.PendingApprovals[0].CallID
	require.Equal(t, "book", st.PendingApprovals[0].Tool)
	require.JSONEq(t, `{"seat":"12A"}`, string(st.PendingApprovals[0].Args))
	out, err := cli("status", run.GetID())
	require.NoError(t, err, out)
	require.Contains(t, out, callID)
	require.Empty(t, tools.requests("/book"), "nothing runs before the decision")

	out, err = cli("approve", run.GetID(), "--call-id", "n999", "--decision", "approve")
	require.Error(t, err)
	require.Contains(t, out, "not a call of this run")
	out, err = cli("approve", run.GetID(), "--call-id", callID, "--decision", "modify")
	require.Error(t, err)
	require.Contains(t, out, `"modify" needs "args"`)

	out, err = cli("approve", run.GetID(), "--call-id", callID, "--decision", "modify", "--args", `{"seat": "14C"}`, "--by", "alice")
	require.NoError(t, err, out)
	require.Contains(t, out, "settled (modify)")

	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	book := tools.requests("/book")
	require.Len(t, book, 1)
	require.JSONEq(t, `{"seat":"14C"}`, book[0].Body)
	approvals := nodesOf(s.trace(run), signals.KindApproval)
	require.Len(t, approvals, 1)
	require.Contains(t, string(approvals[0].Args), "alice")
	recordAndReplay(t, run, "approval_modified")
}
