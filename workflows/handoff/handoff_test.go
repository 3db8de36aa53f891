package handoff

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// registrySpec is the spec of a general agent with handoffs, in a
// registry of itself, orders, and a person.
func registrySpec(handoffs ...string) *config.Resolved {
	return &config.Resolved{
		Agent: config.Agent{Name: "general", Instructions: "Route.", Handoffs: handoffs},
		Registry: []config.Peer{
			{Name: "general"}, {Name: "orders", Capabilities: []string{"orders"}}, {Name: "person", Kind: config.KindHuman},
		},
	}
}

// readHost is a run as the handoffs read it: its spec, its task and its
// records (anything else it is asked panics: the test does not ask it).
type readHost struct {
	Host
	spec *config.Resolved
	task string
}

func (h readHost) Spec() *config.Resolved { return h.spec }
func (h readHost) Task() string           { return h.task }

func (h readHost) Read(n *trace.Node, what string, raw json.RawMessage, v any) {
	if err := json.Unmarshal(raw, v); err != nil {
		panic(fmt.Sprintf("node %s: %s: %v", n.ID, what, err))
	}
}

func TestTargetRefusedNamesTheReason(t *testing.T) {
	for _, tc := range []struct {
		handoffs []string
		to, want string
	}{
		{[]string{"orders", "human"}, "", ""},
		{[]string{"orders", "human"}, "orders", ""},
		{[]string{"orders", "human"}, "person", ""},
		{[]string{"*"}, "person", ""},
		{[]string{"orders", "human"}, "general", "is the agent the run is with"},
		{[]string{"orders", "human"}, "billing", `unknown agent "billing" (agents: orders, person)`},
		{[]string{"human"}, "orders", "may hand over to human only, not to \"orders\""},
		{[]string{"orders", "human"}, "human", ""},
		{[]string{"orders"}, "human", `"human" names any person, and agent general may hand over to none`},
		{nil, "", "has no handoffs"},
		{nil, "orders", "has no handoffs"},
	} {
		err := refusedTarget(registrySpec(tc.handoffs...), tc.to)
		if tc.want == "" {
			require.NoError(t, err, "%v to %q", tc.handoffs, tc.to)
			continue
		}
		require.ErrorContains(t, err, tc.want, "%v to %q", tc.handoffs, tc.to)
	}
}

// The rules read the trace since the agent took the run over.
func TestHandoffViewCountsSinceTheTakeover(t *testing.T) {
	var tr trace.Trace
	add := func(kind signals.NodeKind, status signals.NodeStatus, step int, tool string, out json.RawMessage) {
		id := fmt.Sprintf("n%d", len(tr.Nodes)+1)
		tr.Nodes = append(tr.Nodes, trace.Node{Node: signals.Node{ID: id, Kind: kind, Status: status, Tool: tool, Output: out}, Step: step})
	}
	add(signals.KindCall, signals.StatusFailed, 1, "a", nil) // before the handoff: not counted
	add(signals.KindHandoff, signals.StatusCompleted, 1, "", nil)
	add(signals.KindRequest, signals.StatusCompleted, 2, "", nil)
	add(signals.KindCall, signals.StatusCompleted, 2, "a", nil)
	add(signals.KindRequest, signals.StatusCompleted, 3, "", nil)
	add(signals.KindCall, signals.StatusFailed, 3, "a", nil)
	add(signals.KindHuman, signals.StatusCompleted, 3, "", mustJSON(signals.ReplyRequest{Text: "get me a person"}))
	add(signals.KindRequest, signals.StatusCompleted, 4, "", nil)
	add(signals.KindCall, signals.StatusFailed, 4, "b", nil)
	add(signals.KindCall, signals.StatusFailed, 4, signals.HandoffTool, nil) // the engine's own: not counted

	h := New(Parts{Trace: &tr, Host: readHost{spec: registrySpec("*"), task: "help"}})
	v := h.view()
	require.Equal(t, 2, v.FailuresInARow)
	require.Equal(t, 2, v.StepsWithoutProgress)
	require.Equal(t, []string{"help", "get me a person"}, v.UserWords)
}
