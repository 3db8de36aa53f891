package testsuite

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// evalChatConfig is conversationParityConfig (a conversation agent of
// each shape) waiting idle for its next message for idle.
func evalChatConfig(idle string) string {
	return strings.ReplaceAll(conversationParityConfig, "idle_timeout: 15s", "idle_timeout: "+idle)
}

// A conversation exports with its messages, and `eval run` replays it,
// in both run shapes: it sends each message once the run waits for it,
// and after the last answer ends the conversation (cancelled, as a user
// leaving it would) instead of waiting out its idle_timeout (here an
// hour) past --timeout. The run passes as the recording did, with the
// last turn's output, and is closed when the eval exits.
func TestEvalRunEndsAConversationAfterItsMessages(t *testing.T) {
	t.Parallel()
	s := newStack(t, evalChatConfig("4s"), map[string]scriptedmodel.Script{"parity": heard})
	dir := filepath.Join(t.TempDir(), "cases")
	require.NoError(t, os.Mkdir(dir, 0o755))
	for _, shape := range []string{freeForm, graph} {
		run := s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: "hello"})
		for i, text := range []string{"Paris", "Rome"} {
			awaitOutputs(t, s, run, i+1)
			require.NoError(t, s.update(run, signals.Message, signals.MessageRequest{Text: text, Audit: signals.Audit{By: "ana"}}))
		}
		res, err := s.result(run)
		require.NoError(t, err)
		require.JSONEq(t, `{"heard": "Rome", "turns": 3}`, string(res.Output), "idle, the recording ends with its last output")
		s.awaitListed(run.GetID(), "ExecutionStatus = 'Completed'")
		exported, c := exportCase(t, run.GetID())
		require.Equal(t, []eval.Message{{Text: "Paris", By: "ana"}, {Text: "Rome", By: "ana"}}, c.Messages, shape)
		require.NoError(t, os.Rename(filepath.Join(exported, eval.CaseName(run.GetID())+eval.Ext), filepath.Join(dir, shape+eval.Ext)))
	}

	cfg := filepath.Join(t.TempDir(), "candidate.yaml")
	text := strings.ReplaceAll(evalChatConfig("1h"), "{{MODEL}}", s.model.URL())
	require.NoError(t, os.WriteFile(cfg, []byte(text), 0o644))
	began := time.Now()
	sc, code, stderr := evalScorecard(t, dir, cfg, "--timeout", "90s")
	took := time.Since(began)
	require.Equal(t, 0, code, stderr)
	require.Less(t, took, 60*time.Second, "the eval ends the conversations, not their idle_timeout nor --timeout")
	require.Len(t, sc.Runs, 2)
	for _, r := range sc.Runs {
		require.True(t, r.Pass, "%s: %s", r.Case, r.Why)
		require.Equal(t, eval.StatusCompleted, r.Outcome.Status, r.Case)
		require.Equal(t, map[string]any{"heard": "Rome", "turns": 3.0}, r.Outcome.Output, r.Case)
		require.Equal(t, 3, r.Outcome.Steps, "%s: a model request a turn", r.Case)
		requireClosed(t, r.WorkflowID, enums.WORKFLOW_EXECUTION_STATUS_CANCELED)
	}
	for _, c := range sc.Cases {
		require.Equal(t, eval.ChangeSame, c.Change, c.Case)
	}
}

// approvalConfig's pay tool waits for a person's approval, which no one
// in an eval gives.
const approvalConfig = `
model: { base_url: "{{MODEL}}", name: payer }
tools:
  - { name: pay, effect: write, approval: always, http: { url: "http://127.0.0.1:9/pay" }, parameters: { type: object } }
agents:
  - { name: payer, instructions: Pay bills., tools: [pay] }
`

const approvalCase = `
agent: payer
task: Pay the rent.
tools:
  - { tool: pay, args: { amount: 900 }, result: { paid: true } }
recorded: { status: completed, output: { paid: true }, steps: 2, model_requests: 2, tool_calls: 1, input_tokens: 0, output_tokens: 0, loops: 0, repairs: 0 }
`

// A run that does not finish (here: waiting for an approval no one in an
// eval gives) fails at --timeout naming what it waited for, and is ended
// before `eval run` exits; so is every run it started when it is
// interrupted (Ctrl-C), which then scores nothing.
func TestEvalRunEndsEveryRunItStarted(t *testing.T) {
	t.Parallel()
	payer := func(req openaiRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) == 0 {
			return scriptedmodel.CallTurn("pay", map[string]any{"amount": 900})
		}
		return finalOutput(map[string]any{"paid": true})
	}
	model := startModel(t, map[string]scriptedmodel.Script{"payer": payer}, "")
	dir := t.TempDir()
	cases := writeEvalCases(t, dir, map[string]string{"rent": approvalCase})
	cfg := filepath.Join(dir, "payer.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(strings.ReplaceAll(approvalConfig, "{{MODEL}}", model.URL())), 0o644))

	sc, code, stderr := evalScorecard(t, cases, cfg, "--timeout", "4s")
	require.Equal(t, 1, code, stderr)
	rent := runOf(t, sc, "rent")
	requireClosed(t, rent.WorkflowID, enums.WORKFLOW_EXECUTION_STATUS_CANCELED)
	require.False(t, rent.Pass)
	require.Equal(t, "failed", rent.Outcome.Status)
	require.Equal(t, "no result within --timeout 4s (it waited in phase awaiting_approval, for a person; an eval answers none)", rent.Reason)

	// Interrupted while the run waits: the eval ends it, and exits 2
	// (it could not run; never the 1 of a regression) without a scorecard.
	queue := "eval-interrupted-" + strings.ReplaceAll(time.Now().UTC().Format("150405.000000"), ".", "")
	cmd := exec.Command(filepath.Join(binaries(t), "unstuck"), "eval", "run", cases, "--config", cfg, "--json", "--address", serverAddress,
		"--timeout", "10m", "--task-queue", queue)
	var stdout, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &errs
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	id := awaitRunOn(t, queue)
	require.Eventually(t, func() bool {
		var st signals.Status
		v, err := serverClient.QueryWorkflow(context.Background(), id, "", signals.QueryStatus)
		return err == nil && v.Get(&st) == nil && st.Phase == signals.PhaseAwaitingApproval
	}, 60*time.Second, 100*time.Millisecond, "the run waits for its approval")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("eval run did not exit within a minute of Ctrl-C\nstderr: %s", errs.String())
	}
	require.Equal(t, 2, cmd.ProcessState.ExitCode(), errs.String())
	require.Contains(t, errs.String(), "unstuck: eval: interrupted; the runs it started were ended, and nothing is scored")
	require.Empty(t, stdout.String(), "no scorecard")
	requireClosed(t, id, enums.WORKFLOW_EXECUTION_STATUS_CANCELED)
}

// awaitRunOn is the workflow id of the one run listed on queue.
func awaitRunOn(t *testing.T, queue string) string {
	t.Helper()
	var id string
	require.Eventually(t, func() bool {
		resp, err := serverClient.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: "TaskQueue = '" + queue + "'"})
		if err != nil || len(resp.Executions) != 1 {
			return false
		}
		id = resp.Executions[0].GetExecution().GetWorkflowId()
		return true
	}, 60*time.Second, 200*time.Millisecond, "a run on %s", queue)
	return id
}

// requireClosed requires id's latest run closed, with status want: an
// eval leaves no run of its own waiting on a queue no worker polls.
func requireClosed(t *testing.T, id string, want enums.WorkflowExecutionStatus) {
	t.Helper()
	d, err := serverClient.DescribeWorkflowExecution(context.Background(), id, "")
	require.NoError(t, err)
	require.Equal(t, want, d.GetWorkflowExecutionInfo().GetStatus(), "%s is still %s after eval run exited", id, d.GetWorkflowExecutionInfo().GetStatus())
}
