package testsuite

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// approverConfig is a graph that runs a slow tool for ms milliseconds,
// then waits for a person, and outputs what the person gave.
func approverConfig(ms int) string {
	return fmt.Sprintf(`
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: slow, builtin: sleep, parameters: { type: object } }
agents:
  - name: approver
    instructions: Ask a person.
    tools: [slow]
    graph:
      start: A
      nodes:
        A: { tool: slow, args: { ms: %d } }
        H: { human: true }
        E: { end: true, output: "†state.human" }
      edges:
        - { from: A, to: H }
        - { from: H, to: E, when: "ok" }
`, ms)
}

func sendReply(t *testing.T, run client.WorkflowRun, req signals.ReplyRequest) (signals.ReplyResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := serverClient.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: run.GetID(), RunID: run.GetRunID(), UpdateName: signals.Reply,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return signals.ReplyResult{}, err
	}
	var res signals.ReplyResult
	return res, h.Get(ctx, &res)
}

// A graph with a human node: a reply sent while nothing waits is rejected
// (update) or recorded and ignored (signal); while the run waits, the
// phase says so and a reply completes it.
func TestHumanNodeWaitsForAReply(t *testing.T) {
	t.Parallel()
	cfg := approverConfig(3000) // long enough to send replies while nothing waits
	s := newStack(t, cfg, nil)
	run := s.start(workflows.AgentInput{Agent: "approver", Task: "get approval"})

	// While A runs nothing waits for a reply.
	require.Eventually(t, func() bool { _, step := s.phase(run); return step >= 1 }, 10*time.Second, 50*time.Millisecond)
	_, err := sendReply(t, run, signals.ReplyRequest{Text: "too soon"})
	require.Error(t, err)
	require.Contains(t, err.Error(), "nothing waits for a reply")
	require.NoError(t, serverClient.SignalWorkflow(context.Background(), run.GetID(), run.GetRunID(), signals.Reply,
		signals.ReplyRequest{Text: "also too soon", Audit: signals.Audit{By: "carol"}}))
	// A payload that is not a reply at all is recorded too, and harms nothing.
	require.NoError(t, serverClient.SignalWorkflow(context.Background(), run.GetID(), run.GetRunID(), signals.Reply, "just a string"))
	_, err = sendReply(t, run, signals.ReplyRequest{})
	require.ErrorContains(t, err, `"text" is empty`)

	require.Eventually(t, func() bool { p, _ := s.phase(run); return p == signals.PhaseAwaitingHuman }, 20*time.Second, 100*time.Millisecond)
	require.Eventually(t, func() bool {
		resp, err := s.client.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: "default", Query: fmt.Sprintf("WorkflowId = '%s' AND AgentPhase = 'awaiting_human'", run.GetID()),
		})
		return err == nil && len(resp.Executions) == 1
	}, 20*time.Second, 200*time.Millisecond)

	res, err := sendReply(t, run, signals.ReplyRequest{Text: "approved", Output: []byte(`{"approved": true}`), Audit: signals.Audit{By: "alice", Reason: "looks right"}})
	require.NoError(t, err)
	require.NotEmpty(t, res.NodeID)

	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"approved": true}`, string(out.Output))

	tr := s.trace(run)
	var ignored, answered int
	for _, n := range nodesOf(tr, signals.KindHuman) {
		switch n.Status {
		case signals.StatusSkipped:
			ignored++
			if strings.Contains(n.Error, "not a reply object") {
				continue
			}
			require.Contains(t, n.Error, "ignored reply signal: reply: nothing waits")
			require.Contains(t, string(n.Args), "carol")
		case signals.StatusCompleted:
			answered++
			require.Equal(t, res.NodeID, n.ID)
			require.Contains(t, string(n.Output), "alice")
		}
	}
	require.Equal(t, 2, ignored, "the early reply and the payload that is not a reply")
	require.Equal(t, 1, answered)
	recordAndReplay(t, run, "human_node_reply")
}

// `unstuck reply` answers a waiting run, and says so when nothing waits.
func TestUnstuckReplyCommand(t *testing.T) {
	t.Parallel()
	cfg := approverConfig(3000)
	unstuck := filepath.Join(binaries(t), "unstuck") // built before the run starts its 3 s tool
	s := newStack(t, cfg, nil)
	run := s.start(workflows.AgentInput{Agent: "approver", Task: "approve"})
	reply := func(args ...string) (string, error) {
		args = append([]string{"reply", run.GetID()}, args...)
		args = append(args, "--address", serverAddress)
		out, err := exec.Command(unstuck, args...).CombinedOutput()
		return string(out), err
	}
	out, err := reply("--text", "too soon")
	require.Error(t, err)
	require.Contains(t, out, "nothing waits for a reply")
	out, err = reply()
	require.Error(t, err)
	require.Contains(t, out, `"text" is empty`)

	require.Eventually(t, func() bool { p, _ := s.phase(run); return p == signals.PhaseAwaitingHuman }, 20*time.Second, 100*time.Millisecond)
	out, err = reply("--text", "ok", "--output", `{"approved": true}`, "--by", "alice")
	require.NoError(t, err, out)
	require.Contains(t, out, "reply accepted")
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"approved": true}`, string(res.Output))
}
