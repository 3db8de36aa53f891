package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// Runs started by the released code (93ddf9d, before handoffs): its
// ResolveAgent returned no registry, and an agent of kind human ran as a
// model agent. Such a run keeps doing what it did after the upgrade, in
// every generation, and a handoff sent to it is refused saying why. The
// model is scripted (a test double); the recorded histories
// v093ddf9_handoff_* check the replay of such runs.

// releasedSpec is an agent of a config with handoffs, resolved as the
// released code did: no registry. Its tool hold waits for an approval,
// which keeps the run alive while a test sends it messages.
func releasedSpec(agent string) *config.Resolved {
	obj := map[string]any{"type": "object"}
	f := &config.File{
		Model: config.Model{BaseURL: "http://127.0.0.1:1/v1", Name: "scripted:test"},
		Tools: []config.Tool{
			{Name: "hold", Builtin: "noop", Parameters: obj, Approval: config.ApprovalAlways},
			{Name: "book", Builtin: "noop", Parameters: obj},
		},
		Agents: []config.Agent{
			{Name: "general", Instructions: "Route.", Tools: []string{"hold", "book"}, Handoffs: []string{"orders", "human"}},
			{Name: "orders", Instructions: "Orders.", Capabilities: []string{"orders"}},
			{Name: "person", Kind: config.KindHuman, Instructions: "Run as a model by the released code.", Tools: []string{"hold"}},
		},
	}
	r := mustResolve(f, agent)
	r.Registry = nil
	r.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	return r
}

// releasedRun is a run as the released code carried it into its next
// generation.
func releasedRun(spec *config.Resolved, task string) AgentInput {
	run := &Run{Input: AgentInput{Agent: spec.Agent.Name, Task: task}, Spec: spec,
		Progress: Progress{State: map[string]any{}, Escalations: []Escalation{}}}
	run.Nodes = []Node{{Node: signals.Node{ID: run.newNodeID(), Kind: signals.KindTask, Status: signals.StatusCompleted,
		Args: mustJSON(map[string]any{"task": task, "input": map[string]any{}}), Parents: []string{}}}}
	run.Frontier = []string{run.Nodes[0].ID}
	return AgentInput{Agent: spec.Agent.Name, Task: task, Continued: run}
}

// A kind: human agent of a released run is a model agent in every
// generation: the first (its replay asks the version, which says so) and
// the ones it continues into on this code (which must not turn it into a
// person waiting for a reply mid-run).
func TestReleasedHumanAgentStaysAModelAgent(t *testing.T) {
	for name, in := range map[string]AgentInput{
		"first generation": {Agent: "person", Task: "say done"},
		"continued":        releasedRun(releasedSpec("person"), "say done"),
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, releasedSpec("person"), nil, okTool)
			res, err := h.run(in)
			require.NoError(t, err)
			require.Equal(t, ResultCompleted, res.Status)
			require.JSONEq(t, `"done"`, string(res.Output))
			require.Len(t, h.requests, 1, "the model was asked, as the released code did")
		})
	}
}

// A handoff sent to a run started before handoffs existed is refused
// saying so (the update) or recorded and ignored with that reason (the
// signal), and the run goes on with its agent.
func TestHandoffToARunFromBeforeHandoffsIsRefused(t *testing.T) {
	hold := activities.ModelReply{ToolCalls: []activities.ToolCall{call("c1", "hold", `{}`)}}
	for name, in := range map[string]AgentInput{
		"first generation": {Agent: "general", Task: "hold it"},
		"continued":        releasedRun(releasedSpec("general"), "hold it"),
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, releasedSpec("general"), []activities.ModelReply{hold}, okTool)
			var named, anyone updateResult
			h.handoffUpdate(time.Minute, signals.HandoffRequest{To: "orders"}, &named)
			h.handoffUpdate(2*time.Minute, signals.HandoffRequest{Note: "take it"}, &anyone)
			h.env.RegisterDelayedCallback(func() {
				h.env.SignalWorkflow(signals.Handoff, signals.HandoffRequest{Note: "take it"})
			}, 3*time.Minute)
			var st signals.Status
			h.env.RegisterDelayedCallback(func() {
				v, err := h.env.QueryWorkflow(signals.QueryStatus)
				require.NoError(t, err)
				require.NoError(t, v.Get(&st))
			}, 4*time.Minute)
			_, _ = h.run(in) // the approval times out: what follows is not this test's
			for _, got := range []updateResult{named, anyone} {
				require.ErrorContains(t, got.rejected, "handoff: this run was started before handoffs existed")
			}
			require.Equal(t, "general", st.Agent, "the run goes on with its agent")
			require.Len(t, st.PendingApprovals, 1, "still waiting for the approval")
			tr := h.trace()
			require.Empty(t, nodesOfKind(tr, signals.KindHandoff), "no handoff was tried")
			var ignored []string
			for _, n := range nodesOfKind(tr, signals.KindHuman) {
				if n.Status == signals.StatusSkipped {
					ignored = append(ignored, n.Error)
				}
			}
			require.Len(t, ignored, 1)
			require.Contains(t, ignored[0], "ignored handoff signal: handoff: this run was started before handoffs existed")
		})
	}
}

// handoffUpdate sends the handoff update after a while.
func (h *harness) handoffUpdate(after time.Duration, req signals.HandoffRequest, got *updateResult) {
	h.env.RegisterDelayedCallback(func() {
		h.env.UpdateWorkflow(signals.Handoff, "handoff-"+after.String(), &updateCallback{got: got}, req)
	}, after)
}

// updateCallback records an update's outcome.
type updateCallback struct{ got *updateResult }

func (c *updateCallback) Accept()          {}
func (c *updateCallback) Reject(err error) { c.got.rejected = err }
func (c *updateCallback) Complete(v any, err error) {
	c.got.result, c.got.err, c.got.completed = v, err, true
}

// nodesOfKind are the trace's nodes of one kind.
func nodesOfKind(tr signals.Trace, kind signals.NodeKind) []signals.Node {
	var out []signals.Node
	for _, n := range tr.Nodes {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// The ladder of a released run passes its handoff rung by, as the released
// code did, in the generations this code runs: the loop climbs to stop.
func TestReleasedLadderPassesTheHandoffRungBy(t *testing.T) {
	spec := releasedSpec("general")
	spec.Agent.Policies.Loop = config.LoopPolicy{Window: 16, Repeats: 3}
	spec.Agent.Policies.Escalation = []string{config.RungHandoff, config.RungStop}
	h := newHarness(t, spec, repeat(6, call("k", "book", `{"seat":"12A"}`), activities.ModelReply{Content: "done"}), failingTool)
	_, err := h.run(releasedRun(spec, "book 12A"))
	rep := stopReport(t, err)
	require.Empty(t, nodesOfKind(h.trace(), signals.KindHandoff), "no handoff was tried")
	require.NotEmpty(t, rep.Escalations)
	for _, e := range rep.Escalations {
		require.NotEqual(t, config.RungHandoff, e.Action)
	}
	require.Equal(t, config.RungStop, rep.Escalations[len(rep.Escalations)-1].Action)
}
