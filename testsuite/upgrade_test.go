package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// releasedWorkerEnv names a worker binary built from the released code
// (93ddf9d), which make test builds from git history into
// bin/unstuck-worker-93ddf9d. Without it the upgrade test is skipped: the
// released code is not part of this module.
const releasedWorkerEnv = "UNSTUCK_RELEASED_WORKER"

// upgradeConfig has a person agent (kind: human) that the released code
// runs as a model agent: it looks an order up, then holds it (approval:
// always), which keeps the run waiting across the upgrade.
const upgradeConfig = `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: lookup_order, builtin: noop, parameters: { type: object } }
  - { name: hold_order, builtin: noop, effect: write, approval: always, parameters: { type: object } }
agents:
  - name: person
    kind: human
    instructions: You are a person (the released code runs you as a model).
    model: { name: upgrade-person }
    tools: [lookup_order, hold_order]
    handoffs: ["*"]
  - { name: orders, capabilities: [orders], instructions: Orders., model: { name: upgrade-person } }
`

// upgradeScript (the test double for the model): look up, hold, done.
func upgradeScript(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	switch scriptedmodel.AssistantTurns(req) {
	case 0:
		return scriptedmodel.CallTurn("lookup_order", map[string]string{"order": "1234"})
	case 1:
		return scriptedmodel.CallTurn("hold_order", map[string]string{"order": "1234"})
	default:
		return scriptedmodel.Reply("order 1234 held")
	}
}

// A run the released worker started, with a kind: human agent that it
// ran as a model agent, is taken over by this worker mid-run: a handoff
// sent to it is refused saying it was started before handoffs (update) or
// recorded and ignored (signal), and after an edit continues it as new on
// this worker it is still a model agent (the model is asked again, no
// person is waited for) and completes.
func TestReleasedRunUpgradedMidRun(t *testing.T) {
	t.Parallel()
	bin := os.Getenv(releasedWorkerEnv)
	if _, err := os.Stat(bin); bin == "" || err != nil {
		// make test builds it from git history; only a source archive has none.
		t.Skipf("set %s to a worker built from the released code (93ddf9d) to run this test (make test does)", releasedWorkerEnv)
	}
	model, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{"upgrade-person": upgradeScript}, "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	t.Cleanup(func() { _ = model.Close() })
	yaml := strings.ReplaceAll(upgradeConfig, "{{MODEL}}", model.URL())
	path := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o600))
	s := &stack{t: t, model: model, client: serverClient, queue: fmt.Sprintf("upgrade-%d", time.Now().UnixNano())}

	// The released worker starts the run and brings it to the approval.
	old := exec.Command(bin, "--config", path, "--task-queue", s.queue)
	old.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+serverAddress, "TEMPORAL_NAMESPACE=default")
	old.Stdout, old.Stderr = os.Stderr, os.Stderr
	require.NoError(t, old.Start())
	stopped := false
	stopOld := func() {
		if !stopped {
			stopped = true
			_ = old.Process.Kill()
			_ = old.Wait()
		}
	}
	t.Cleanup(stopOld)
	run := s.start(workflows.AgentInput{Agent: "person", Task: "hold order 1234"})
	id, firstRunID := run.GetID(), run.GetRunID()
	s.awaitApproval(id, 0, "hold_order")
	stopOld()

	// This worker takes the run over.
	cfg, err := config.Parse("upgrade.yaml", []byte(yaml), app.ConfigOptions())
	require.NoError(t, err)
	w, err := app.NewWorkers(serverClient, cfg, s.queue, workerOptions())
	require.NoError(t, err)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	_, err = s.sendHandoff(id, signals.HandoffRequest{To: "orders"})
	require.ErrorContains(t, err, "handoff: this run was started before handoffs existed")
	s.signal(id, signals.Handoff, signals.HandoffRequest{Note: "take it", Audit: signals.Audit{By: "carol"}})
	why := s.awaitIgnored(s.latest(id), 1)
	require.Contains(t, why[0], "ignored handoff signal: handoff: this run was started before handoffs existed")

	// An edit continues it as new, on this worker: still a model agent.
	lookup := callsOf(s.trace(s.latest(id)), "lookup_order")[0]
	res, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"order":"1234","status":"lost"}`), Audit: signals.Audit{By: "bob"}})
	require.NoError(t, err)
	require.Equal(t, 1, res.Generation)
	again := s.awaitApproval(id, 1, "hold_order")
	require.Equal(t, signals.PhaseAwaitingApproval, s.status(s.latest(id)).Phase, "a model agent's call waits, not a person")
	s.approveCall(id, again.CallID)
	out, err := s.result(s.latest(id))
	require.NoError(t, err)
	require.Equal(t, "completed", out.Status)
	require.JSONEq(t, `"order 1234 held"`, string(out.Output))
	require.Equal(t, "person", out.Agent)
	require.Empty(t, out.HandoffPath)

	ctx := context.Background()
	recordAndReplay(t, s.client.GetWorkflow(ctx, id, firstRunID), "v093ddf9_handoff_upgraded_gen0")
	recordAndReplay(t, s.latest(id), "v093ddf9_handoff_upgraded_gen1")
}
