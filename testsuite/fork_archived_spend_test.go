package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A fork of a long run, from a node after the trace's archived part,
// starts with what every node it keeps cost, the archived ones included
// (version fork-archived-spend): its spend is the source's up to that
// node, not only what the source still carried.
func TestAForkOfALongRunCountsWhatItsArchivedNodesCost(t *testing.T) {
	t.Parallel()
	const turns = 130
	cfg := `
model: { base_url: "{{MODEL}}", name: counter }
tools:
  - { name: echo, builtin: echo, parameters: { type: object } }
agents:
  - name: counter
    instructions: Count.
    tools: [echo]
    policies: { max_steps: 200, escalation: [human, stop], budget: { model_requests: 1000, tool_calls: 1000 } }
`
	pad := strings.Repeat("x", 2<<10)
	counter := func(req openaiRequest) scriptedmodel.Turn {
		if i := scriptedmodel.NextStep(req); i < turns {
			return scriptedmodel.CallTurn("echo", map[string]any{"i": i, "pad": pad})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"turns": turns})
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"counter": counter})
	run := s.start(workflows.AgentInput{Agent: "counter", Task: "count"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"turns": %d}`, turns), string(res.Output))
	require.NotNil(t, res.Spend)
	require.EqualValues(t, turns+1, res.Spend.ModelRequests)
	require.EqualValues(t, turns, res.Spend.ToolCalls)

	latest := s.client.GetWorkflow(context.Background(), run.GetID(), "")
	tr := s.trace(latest)
	require.NotNil(t, tr.Archived, "the oldest part of the trace is archived")
	whole, err := runmsg.ReadWholeTrace(context.Background(), run.GetID(), "", func(wid, rid string) runmsg.TraceQuery {
		return func(ctx context.Context, out *signals.Trace, args ...any) error {
			v, err := s.client.QueryWorkflow(ctx, wid, rid, signals.QueryTrace, args...)
			if err != nil {
				return err
			}
			return v.Get(out)
		}
	})
	require.NoError(t, err)

	// The fork's node: the last echo call, which the source still carries.
	var at string
	for _, n := range nodesOf(tr, signals.KindCall) {
		if n.Tool == "echo" {
			at = n.ID
		}
	}
	require.Greater(t, nodeNum(at), nodeNum(tr.Archived.Through), "the fork's node is after the archived part")
	// What the nodes up to it cost: every request and call of the whole
	// trace; the carried nodes alone cost less.
	upTo := func(nodes []signals.Node) (requests, calls int64) {
		for _, n := range nodes {
			if nodeNum(n.ID) > nodeNum(at) {
				continue
			}
			switch {
			case n.Kind == signals.KindRequest:
				requests++
			case n.Kind == signals.KindCall && n.Tool == "echo":
				calls++
			}
		}
		return requests, calls
	}
	wantRequests, wantCalls := upTo(whole.Nodes)
	carriedRequests, carriedCalls := upTo(tr.Nodes)
	require.EqualValues(t, turns, wantRequests)
	require.EqualValues(t, turns, wantCalls)
	require.Less(t, carriedRequests, wantRequests, "the source carries only part of its requests")
	require.Less(t, carriedCalls, wantCalls)

	fork := s.start(workflows.AgentInput{From: &workflows.ForkFrom{WorkflowID: run.GetID(), NodeID: at}})
	forked, err := s.result(fork)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"turns": %d}`, turns), string(forked.Output))

	// The fork started with the spend of every node it kept.
	ft := s.trace(fork)
	edits := nodesOf(ft, signals.KindEdit)
	require.Len(t, edits, 1)
	var out struct {
		SpendKept signals.SpendStatus `json:"spend_kept"`
	}
	require.NoError(t, json.Unmarshal(edits[0].Output, &out), "%s", edits[0].Output)
	require.Equal(t, wantRequests, out.SpendKept.ModelRequests, "the archived requests are counted")
	require.Equal(t, wantCalls, out.SpendKept.ToolCalls, "the archived calls are counted")
	// And it goes on from there: one request more, the final output.
	st := s.status(fork)
	require.NotNil(t, st.Spend)
	require.Equal(t, wantRequests+1, st.Spend.ModelRequests)
	require.Equal(t, wantCalls, st.Spend.ToolCalls)
	require.Equal(t, res.Spend.ModelRequests, st.Spend.ModelRequests, "the fork spent what its source did")
	require.Equal(t, res.Spend.ToolCalls, st.Spend.ToolCalls)
	t.Logf("fork at %s (archived through %s): spend %d requests, %d calls; the carried nodes alone %d requests, %d calls",
		at, tr.Archived.Through, st.Spend.ModelRequests, st.Spend.ToolCalls, carriedRequests, carriedCalls)

	recordAndReplay(t, fork, "fork_archived_spend")
}
