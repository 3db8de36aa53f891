package trace

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

var at = time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))

// node adds a node of kind k and status s.
func node(tr *Trace, k signals.NodeKind, s signals.NodeStatus) *Node {
	return tr.Add(Node{Node: signals.Node{Kind: k, Status: s}}, "agent", at)
}

// Add gives ids that go on counting, the agent when the node names none,
// no parents as an empty list (the JSON says []), and the time in UTC.
func TestAddGivesIdsAgentAndTime(t *testing.T) {
	tr := &Trace{NextID: 41}
	a := tr.Add(Node{}, "agent", at)
	b := tr.Add(Node{Node: signals.Node{Agent: "other", Parents: []string{"n42"}}}, "agent", at)
	require.Equal(t, "n42", a.ID)
	require.Equal(t, "agent", a.Agent)
	require.Equal(t, []string{}, a.Parents)
	require.Equal(t, time.UTC, a.At.Location())
	require.Equal(t, "n43", b.ID)
	require.Equal(t, "other", b.Agent)
	require.Equal(t, 43, tr.NextID)
	require.Equal(t, 1, tr.Index("n43"))
	require.Equal(t, -1, tr.Index("n1"))
	require.Nil(t, tr.Node("n1"))
	require.Equal(t, 43, Number("n43"))
	require.Equal(t, 0, Number("x43"))
}

// Finish, Skip and NotRun settle a node and say why it did not run.
func TestFinishSkipAndNotRun(t *testing.T) {
	tr := &Trace{}
	a := node(tr, signals.KindCall, signals.StatusRunning).ID
	b := node(tr, signals.KindCall, signals.StatusRunning).ID
	tr.Finish(a, nil, "boom", at)
	tr.NotRun(a, life.Interrupted)
	require.Equal(t, signals.StatusFailed, tr.Node(a).Status)
	require.Equal(t, "boom", tr.Node(a).Error)
	require.Equal(t, life.Interrupted, tr.Node(a).NotRun)
	tr.Finish(a, []byte(`1`), "", at)
	require.Equal(t, signals.StatusCompleted, tr.Node(a).Status)
	require.Empty(t, tr.Node(a).NotRun, "finished again, it ran")
	tr.Skip(b, "not needed", at)
	require.Equal(t, signals.StatusSkipped, tr.Node(b).Status)
	require.Equal(t, "not needed", tr.Node(b).Error)
	tr.Finish("n99", nil, "", at) // no such node: nothing happens
	tr.Settle(tr.Node(a))
	tr.Settle(tr.Node(b))
	require.Equal(t, []int{1, 2}, []int{tr.Node(a).Settled, tr.Node(b).Settled})
	require.Equal(t, 2, tr.Settles)
}

// An edit's and a rollback's invalidation gives up the nodes'
// checkpoints; a turn's restart keeps them (until the next checkpoint)
// and leaves the messages standing.
func TestInvalidationsAndTheirFrontiers(t *testing.T) {
	tr := &Trace{}
	task := node(tr, signals.KindTask, signals.StatusCompleted).ID
	req := node(tr, signals.KindRequest, signals.StatusCompleted)
	req.Checkpoint = []byte(`{}`)
	call := node(tr, signals.KindCall, signals.StatusCompleted).ID
	msg := node(tr, signals.KindTask, signals.StatusCompleted).ID
	later := node(tr, signals.KindRequest, signals.StatusCompleted)
	later.Checkpoint = []byte(`{}`)

	tr.RestartedTurn(0, at)
	require.Equal(t, []string{task}, tr.Frontier)
	require.Equal(t, signals.StatusCompleted, tr.Node(msg).Status, "a message stands")
	require.Equal(t, signals.StatusInvalidated, tr.Node(call).Status)
	require.NotEmpty(t, tr.Node(later.ID).Checkpoint)

	tr = &Trace{}
	node(tr, signals.KindTask, signals.StatusCompleted)
	req = node(tr, signals.KindRequest, signals.StatusCompleted)
	req.Checkpoint = []byte(`{}`)
	reqID := req.ID
	esc := node(tr, signals.KindEscalation, signals.StatusCompleted).ID
	tr.RolledBack(esc, at, func(n *Node) bool { return n.Kind == signals.KindRequest })
	require.Equal(t, []string{esc}, tr.Frontier)
	require.Equal(t, signals.StatusInvalidated, tr.Node(reqID).Status)
	require.Empty(t, tr.Node(reqID).Checkpoint)
	require.Equal(t, signals.StatusCompleted, tr.Node(esc).Status)

	tr.Invalidate([]string{esc, "n99"}, at)
	require.Equal(t, signals.StatusInvalidated, tr.Node(esc).Status)
}

// A handoff skips what was under way, but itself, and the next step
// follows from it.
func TestHandedOverSkipsWhatWasUnderWay(t *testing.T) {
	tr := &Trace{}
	done := node(tr, signals.KindCall, signals.StatusCompleted).ID
	asked := node(tr, signals.KindCall, signals.StatusAwaitingApproval).ID
	h := node(tr, signals.KindHandoff, signals.StatusPending).ID
	tr.HandedOver(h, "b", at)
	require.Equal(t, []string{h}, tr.Frontier)
	require.Equal(t, signals.StatusCompleted, tr.Node(done).Status)
	require.Equal(t, signals.StatusSkipped, tr.Node(asked).Status)
	require.Equal(t, "not run: the run was handed over to b", tr.Node(asked).Error)
	require.Equal(t, signals.StatusPending, tr.Node(h).Status)
}

// Each of the frontier's moves puts the next step after the node it is
// given; Called after all the step's calls.
func TestFrontierMoves(t *testing.T) {
	tr := &Trace{}
	for _, move := range []func(string){tr.Started, tr.Replied, tr.Visited, tr.Refused, tr.Answered, tr.TookMessage, tr.EndedTurn, tr.Edited} {
		id := node(tr, signals.KindRequest, signals.StatusCompleted).ID
		move(id)
		require.Equal(t, []string{id}, tr.Frontier)
	}
	tr.Called([]string{"n1", "n2"})
	require.Equal(t, []string{"n1", "n2"}, tr.Frontier)
}

// Drop removes a fork's invalidated nodes; ids go on counting.
func TestDropKeepsTheOthersInOrder(t *testing.T) {
	tr := &Trace{}
	for range 4 {
		node(tr, signals.KindCall, signals.StatusCompleted)
	}
	tr.Drop([]string{"n2", "n3"})
	require.Equal(t, []string{"n1", "n4"}, []string{tr.Nodes[0].ID, tr.Nodes[1].ID})
	require.Equal(t, "n5", node(tr, signals.KindCall, signals.StatusCompleted).ID)
}

// A call served by a fallback asked for the tool it names.
func TestAskedTool(t *testing.T) {
	require.Equal(t, "a", (&Node{Node: signals.Node{Tool: "a"}}).AskedTool())
	require.Equal(t, "a", (&Node{Node: signals.Node{Tool: "b", FallbackOf: "a"}}).AskedTool())
}

// A checkpoint is kept on the latest nodes only, never on an invalidated
// one; a carry too big drops them all.
func TestCheckpointsAreBounded(t *testing.T) {
	tr := &Trace{}
	for range 4 {
		node(tr, signals.KindRequest, signals.StatusCompleted)
	}
	tr.Nodes[1].Checkpoint = []byte(`{}`)
	tr.Nodes[1].Status = signals.StatusInvalidated
	tr.Checkpoint("n1", []byte(`1`), 2)
	tr.Checkpoint("n3", []byte(`3`), 2)
	tr.Checkpoint("n4", []byte(`4`), 2)
	var with []string
	for _, n := range tr.Nodes {
		if len(n.Checkpoint) > 0 {
			with = append(with, n.ID)
		}
	}
	require.Equal(t, []string{"n3", "n4"}, with)
	require.True(t, tr.DropCheckpoints())
	require.False(t, tr.DropCheckpoints())
}

// A fork's trace keeps no write for the effect ledger, nor what the
// source archived after the fork's node.
func TestForkedForgetsTheSourcesWritesAndLaterArchive(t *testing.T) {
	tr := &Trace{Archived: &Archive{Last: "n9", SpentAfter: []NodeSpend{{ID: "n3"}, {ID: "n8"}}}}
	n := node(tr, signals.KindCall, signals.StatusCompleted)
	n.Executed, n.Ran, n.CallKey = true, true, "n1"
	tr.Forked("n5")
	require.False(t, tr.Nodes[0].Executed || tr.Nodes[0].Ran)
	require.Empty(t, tr.Nodes[0].CallKey)
	require.Equal(t, "n5", tr.Archived.Last)
	require.Equal(t, []NodeSpend{{ID: "n3"}}, tr.Archived.SpentAfter)
	tr.Forked("n7") // before Last now: nothing more to forget
	require.Equal(t, "n5", tr.Archived.Last)
}

// A call's status moves: running, awaiting approval, cancelled.
func TestCallStatusMoves(t *testing.T) {
	tr := &Trace{}
	id := node(tr, signals.KindCall, signals.StatusPending).ID
	tr.AwaitingApproval(id, at)
	require.Equal(t, signals.StatusAwaitingApproval, tr.Node(id).Status)
	require.Same(t, tr.Node(id), tr.Running(id, at))
	require.Equal(t, signals.StatusRunning, tr.Node(id).Status)
	require.Nil(t, tr.Running("n99", at))
	tr.Cancelled(id, at)
	require.Equal(t, signals.StatusSkipped, tr.Node(id).Status)
	require.Equal(t, "canceled", tr.Node(id).Error)
}
