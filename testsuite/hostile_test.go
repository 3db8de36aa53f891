package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The hostile-input layer: what a careless or hostile user can send (to
// the worker through a model's reply or a tool's answer, or to a run as a
// message) ends clearly or is carried on from, never wedges or loses the
// run, and never reaches an address outside the worker's config.

// A signal that cannot be decoded, and messages over the size bound, are
// refused (update) or recorded and ignored (signal); the run takes the next
// message and completes.
func TestHostileMessagesAreRefusedAndTheRunGoesOn(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: echo, builtin: echo }
agents:
  - name: asker
    instructions: Ask.
    tools: [echo]
    graph: { start: H, nodes: { H: { human: true }, E: { end: true, output: "†state.human" } }, edges: [ { from: H, to: E } ] }
`
	s := newStack(t, cfg, nil)
	run := s.start(workflows.AgentInput{Agent: "asker", Task: "ask a person"})
	require.Eventually(t, func() bool { p, _ := s.phase(run); return p == signals.PhaseAwaitingHuman }, 20*time.Second, 100*time.Millisecond)
	ctx := context.Background()

	corrupt := converter.NewRawValue(&commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte("{not json")})
	require.NoError(t, s.client.SignalWorkflow(ctx, run.GetID(), "", signals.Approve, corrupt))
	require.NoError(t, s.client.SignalWorkflow(ctx, run.GetID(), "", signals.Reply, corrupt))
	big := signals.ReplyRequest{Text: strings.Repeat("x", config.MaxMessageBytes+1)}
	require.NoError(t, s.client.SignalWorkflow(ctx, run.GetID(), "", signals.Reply, big))
	update := func(arg any) error { return s.update(run, signals.Reply, arg) }
	require.ErrorContains(t, update(big), "over the 256 KiB a message may carry")
	require.ErrorContains(t, update(corrupt), "unable to decode", "an undecodable update is rejected")
	require.NoError(t, update(signals.ReplyRequest{Text: "yes", Output: json.RawMessage(`{"ok": true}`)}))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"ok": true}`, string(res.Output))
	ignored := 0
	for _, n := range nodesOf(s.trace(run), signals.KindHuman) {
		if n.Status == signals.StatusSkipped {
			ignored++
		}
	}
	require.Equal(t, 3, ignored, "the two corrupt signals and the oversized one are on record")
}

// A model reply of 3,000 calls (Temporal allows 2,000 pending activities)
// runs calls_per_reply of them, answers the rest, and the run completes.
func TestThreeThousandCallsInOneReply(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: flood }
tools:
  - { name: echo, builtin: echo }
agents:
  - { name: flooder, instructions: Call., tools: [echo] }
`
	var calls []scriptedmodel.Call
	for i := range 3000 {
		calls = append(calls, scriptedmodel.NewCall("echo", map[string]int{"i": i}))
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"flood": scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(calls...),
		scriptedmodel.Reply("done"),
	)})
	run := s.start(workflows.AgentInput{Agent: "flooder", Task: "call a lot"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `"done"`, string(res.Output))
	ran, refused := 0, 0
	for _, n := range nodesOf(s.trace(run), signals.KindCall) {
		switch {
		case n.Status == signals.StatusCompleted:
			ran++
		case strings.Contains(n.Error, "over the limit of 64 calls per reply"):
			refused++
		}
	}
	require.Equal(t, 64, ran)
	require.Equal(t, 2936, refused)
}

// A tool answering with a redirect is not followed: the call fails with
// the status and the place it pointed to, which is never reached.
func TestRedirectingToolIsNotFollowed(t *testing.T) {
	t.Parallel()
	elsewhere := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 200, map[string]any{"stolen": true}) })
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		http.Redirect(w, r, elsewhere.URL+"/steal", http.StatusTemporaryRedirect)
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: redirect }
tools:
  - { name: lookup, http: { method: POST, url: "` + tools.URL + `/lookup" } }
agents:
  - { name: looker, instructions: Look., tools: [lookup], policies: { repair: { max_attempts: 0 } } }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"redirect": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("lookup", map[string]string{"q": "x"}),
		scriptedmodel.Reply("gave up"),
	)})
	run := s.start(workflows.AgentInput{Agent: "looker", Task: "look"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `"gave up"`, string(res.Output))
	require.Len(t, tools.requests("/lookup"), 1, "a 3xx is final: no retry")
	require.Empty(t, elsewhere.requests("/steal"), "the redirect is never followed")
	call := nodesOf(s.trace(run), signals.KindCall)[0]
	require.Contains(t, call.Error, "HTTP 307: redirect to")
}

// Two references to a large result in one call, and an output over the
// payload limit, fail the smallest thing (the call, the output) with the
// size; the run goes on and completes.
func TestOversizedArgumentsAndOutputFailTheSmallestThing(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Path == "/big" {
			writeJSON(w, 200, strings.Repeat("b", 1000<<10))
			return
		}
		writeJSON(w, 200, map[string]any{"ok": true})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: sizes }
tools:
  - { name: fetch, http: { method: POST, url: "` + tools.URL + `/big" } }
  - { name: store, http: { method: POST, url: "` + tools.URL + `/store" } }
agents:
  - { name: mover, instructions: Move., tools: [fetch, store] }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"sizes": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("fetch", map[string]string{"_outputPath": "†state.big"}),
		scriptedmodel.CallTurn("store", map[string]string{"a": "†state.big", "b": "†state.big"}),
		scriptedmodel.CallTurn("final_output", map[string]string{"all": "†state.big", "again": "†state.big"}),
		scriptedmodel.CallTurn("final_output", map[string]string{"all": "summary"}),
	)})
	run := s.start(workflows.AgentInput{Agent: "mover", Task: "move it"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"all": "summary"}`, string(res.Output))
	require.Empty(t, tools.requests("/store"), "the oversized call never reaches its tool")
	tr := s.trace(run)
	var errs []string
	for _, n := range nodesOf(tr, signals.KindCall) {
		if n.Error != "" {
			errs = append(errs, n.Error)
		}
	}
	require.Len(t, errs, 2)
	require.Contains(t, errs[0], "the resolved arguments are 2000 KiB, over the 1536 KiB")
	require.Contains(t, errs[1], "the output is 2000 KiB, over the 1536 KiB")
}

// A tool removed from the worker's config while a run waits to call it:
// the call fails for good with the tool's name, and the run goes on.
func TestToolRemovedFromTheConfigFailsItsCall(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 200, map[string]any{"ok": true}) })
	model, err := scriptedmodel.Start("127.0.0.1:0", map[string]scriptedmodel.Script{"removed": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("pay", map[string]int{"amount": 5}),
		scriptedmodel.Reply("could not pay"),
	)}, "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	t.Cleanup(func() { _ = model.Close() })
	before := `
model: { base_url: "` + model.URL() + `", name: removed }
tools:
  - { name: pay, http: { method: POST, url: "` + tools.URL + `/pay" }, approval: always, effect: write }
  - { name: note, builtin: echo }
agents:
  - { name: payer, instructions: Pay., tools: [pay, note] }
`
	after := `
model: { base_url: "` + model.URL() + `", name: removed }
tools:
  - { name: note, builtin: echo }
agents:
  - { name: payer, instructions: Pay., tools: [note] }
`
	queue := fmt.Sprintf("removed-%d", time.Now().UnixNano())
	startWorker := func(yaml string) *app.Workers {
		cfg, err := config.Parse(t.Name()+".yaml", []byte(yaml), app.ConfigOptions())
		require.NoError(t, err)
		w, err := app.NewWorkers(serverClient, cfg, queue, workerOptions())
		require.NoError(t, err)
		require.NoError(t, w.Start())
		return w
	}
	first := startWorker(before)
	run, err := serverClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
		ID: queue, TaskQueue: queue, WorkflowExecutionTimeout: 5 * time.Minute,
	}, workflows.WorkflowName, workflows.AgentInput{Agent: "payer", Task: "pay 5"})
	require.NoError(t, err)
	s := &stack{t: t, client: serverClient, queue: queue}
	require.Eventually(t, func() bool { p, _ := s.phase(run); return p == signals.PhaseAwaitingApproval }, 20*time.Second, 100*time.Millisecond)
	callID := s.status(run).PendingApprovals[0].CallID
	first.Stop()
	second := startWorker(after)
	t.Cleanup(second.Stop)

	require.NoError(t, s.update(run, signals.Approve, signals.ApproveRequest{CallID: callID, Decision: signals.DecisionApprove}))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `"could not pay"`, string(res.Output))
	require.Empty(t, tools.requests("/pay"), "the removed tool is not called")
	var pay signals.Node
	for _, n := range nodesOf(s.trace(run), signals.KindCall) {
		if n.Tool == "pay" {
			pay = n
		}
	}
	require.Contains(t, pay.Error, "tool pay is not in this worker's config")
}
