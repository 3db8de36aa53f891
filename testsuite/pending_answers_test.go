package testsuite

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// signOffConfig: desk hands a run to signer, a person; clerk is another
// agent a handoff may name.
const signOffConfig = `
model: { base_url: "{{MODEL}}", name: unused }
agents:
  - name: desk
    instructions: You route sign-offs.
    model: { name: so-desk }
    handoffs: [human, clerk]
  - name: clerk
    description: Files paperwork.
    instructions: You file paperwork.
    model: { name: so-clerk }
  - name: signer
    description: A person who signs orders off.
    kind: human
    policies: { human_timeout: 1h }
`

// pausable is a stack whose worker can be stopped and started again, so
// messages sent meanwhile reach the run together, in one workflow task.
type pausable struct {
	*stack
	mu sync.Mutex
	w  *app.Workers
}

func newPausable(t *testing.T, yaml string, scripts map[string]scriptedmodel.Script) *pausable {
	t.Helper()
	s, _ := unservedStack(t, yaml, scripts)
	p := &pausable{stack: s}
	p.resume()
	t.Cleanup(p.pause)
	return p
}

func (p *pausable) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		p.w.Stop()
		p.w = nil
	}
}

func (p *pausable) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, err := app.NewWorkers(serverClient, p.cfg, p.queue, workerOptions())
	require.NoError(p.t, err)
	p.w = w
	require.NoError(p.t, p.w.Start())
}

// updateAsync sends an update to a workflow's latest run and answers its
// outcome on the channel once it has one.
func updateAsync(id, name string, arg any) <-chan error {
	out := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
		defer cancel()
		h, err := serverClient.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
			WorkflowID: id, UpdateName: name, Args: []any{arg}, WaitForStage: client.WorkflowUpdateStageCompleted,
		})
		if err == nil {
			err = h.Get(ctx, nil)
		}
		out <- err
	}()
	return out
}

// A person's reply and another message that reach the run in the same
// workflow task, while its worker was away: the reply is taken (it
// completes the run, or hands it back to the agent before), and the other
// update, accepted but never carried out, is answered saying why before
// the run closes or continues as new, instead of waiting for ever (and the
// run with it: a run closes only once every handler has finished).
func TestAReplyAndAnotherMessageTogetherAreBothAnswered(t *testing.T) {
	t.Parallel()
	output := signals.ReplyRequest{Text: "signed", Output: json.RawMessage(`{"resolution": "signed off"}`)}
	for _, tc := range []struct {
		name    string
		history string // recorded as, when the run is one generation
		start   string // the run's first agent: desk hands it to signer
		reply   signals.ReplyRequest
		other   string
		arg     any
		want    string
		// orWant: the other right answer, when the reply's handler had
		// begun (closing the run, or handing it back) before the other
		// update was validated: the two reach the run in one workflow task
		// or in two, as the server delivers them, and the validator then
		// refuses it saying why.
		orWant string
	}{
		{name: "output and a handoff", history: "pending_answered_handoff", start: "signer", reply: output, other: signals.Handoff, arg: signals.HandoffRequest{To: "clerk"},
			want: "handoff: not carried out: the run completed before it could be", orWant: "handoff: the run is closing"},
		{name: "output and an edit", history: "pending_answered_edit", start: "signer", reply: output, other: signals.Edit,
			arg:  signals.EditRequest{NodeID: "n1", Output: json.RawMessage(`"sign order 8 off"`)},
			want: "edit: not carried out: the run completed before it could be", orWant: "edit: the run is closing"},
		{name: "text alone and a handoff", start: "desk", reply: signals.ReplyRequest{Text: "not mine: back to you"}, other: signals.Handoff,
			arg:    signals.HandoffRequest{To: "clerk"},
			want:   "handoff: not carried out: the run continued as new into generation 2 before it could be",
			orWant: "handoff: a handoff to desk is being carried out; send it to the run that follows (generation 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPausable(t, signOffConfig, map[string]scriptedmodel.Script{
				"so-desk": handedBackBy("signer",
					scriptedmodel.Sequence(handoffCall("signer", "user_escalation", "Order 7 needs a person's sign-off.", "sign order 7 off")),
					scriptedmodel.Reply("The signer sent it back; filed as is.")),
			})
			run := latestRun{p.start(workflows.AgentInput{Agent: tc.start, Task: "sign order 7 off"})}
			t.Cleanup(func() { _ = serverClient.TerminateWorkflow(context.Background(), run.GetID(), "", "test over") })
			awaitPhase(t, p.stack, run, signals.PhaseAwaitingHuman)

			// Both messages wait for the worker, then reach the run together.
			p.pause()
			replied := updateAsync(run.GetID(), signals.Reply, tc.reply)
			time.Sleep(time.Second)
			other := updateAsync(run.GetID(), tc.other, tc.arg)
			time.Sleep(time.Second)
			p.resume()

			require.NoError(t, <-replied)
			err := <-other
			require.Error(t, err, "the %s update is answered with why it was not carried out", tc.other)
			// A third right answer: the update reached the server after the
			// run had closed, and the server aborted it.
			answered := []string{tc.want, "workflow update was aborted by closing workflow"}
			if tc.orWant != "" {
				answered = append(answered, tc.orWant)
			}
			require.True(t, slices.ContainsFunc(answered, func(w string) bool { return strings.Contains(err.Error(), w) }),
				"the %s update is answered with why it was not carried out: %v (want one of %q)", tc.other, err, answered)

			res, err := p.result(run)
			require.NoError(t, err, "the run is not held up by the update")
			if tc.start == "signer" {
				require.JSONEq(t, `{"resolution": "signed off"}`, string(res.Output))
				recordAndReplay(t, run, tc.history)
				return
			}
			require.Equal(t, "desk", res.Agent, "the reply handed the run back to desk")
			require.Equal(t, []string{"desk", "signer", "desk"}, res.HandoffPath)
		})
	}
}
