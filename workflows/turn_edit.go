package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// An edit (or a fork) of a conversation's node goes on from that node's
// turn. What came after the node, later turns and their messages
// included, is invalidated (policies.PlanEdit: a model request reads the
// whole conversation before it), so the turn under way is the edited
// node's again: a message that cuts it short rolls back to its start,
// the effect ledger reads its writes from there, an agent it is handed to
// reads its message, and its step ceiling counts from its start. The
// turn's answer is given again, and the run then waits for the next
// message. Messages accepted and not yet taken stay in the inbox; a fork
// takes none of its source's (they were sent to the source).

// turnOf is the turn the node at index i belongs to: the message that
// began it ("" for the first, which the run's task began) and the step it
// began at. known is false when that message is not in the trace (the
// trace's older part is archived).
func turnOf(run *Run, i int) (began string, since int, known bool) {
	for j := i; j >= 0; j-- {
		if n := &run.Nodes[j]; beginsTurn(run, n) {
			return n.ID, n.Step, true
		}
	}
	return "", 0, run.Archived == nil
}

// beginsTurn says whether a node is a message that began a turn: taken
// after an answer (a message taken mid-turn follows a step instead).
func beginsTurn(run *Run, n *Node) bool {
	if n.Kind != signals.KindTask || n.Status != signals.StatusCompleted || len(n.Parents) != 1 {
		return false
	}
	if _, ok := messageOf(n); !ok {
		return false
	}
	p := run.node(n.Parents[0])
	return p != nil && p.Kind == signals.KindOutput && p.Status == signals.StatusCompleted
}

// editedTurn makes the turn of the edited node (nodeID) the turn under
// way, and, for a fork, leaves its source's waiting messages and wait
// behind. A run recorded before the change kept the turn it was in
// (version turn-edit, asked only when the two differ).
func (r *runner) editedTurn(ctx workflow.Context, nodeID string, fork bool) {
	run := r.run
	if run.Spec.Agent.Conversation == nil {
		return
	}
	t := run.Turn
	want := t
	at := run.nodeIndex(nodeID)
	if b := run.nodeIndex(t.Began); at >= 0 && (b > at || (t.Began != "" && b < 0)) {
		// The turn under way began after the edited node (or is no longer
		// in the trace): find the node's own.
		if began, since, known := turnOf(run, at); known {
			want.Began, want.Since = began, since
		}
	}
	if fork {
		want.Inbox, want.Waiting = nil, ""
	}
	if sameTurn(t, want) || versionOf(ctx, versionTurnEdit, 1) < 1 {
		return
	}
	run.Turn = want
}

// sameTurn says whether an edit leaves a conversation's turn as it was.
func sameTurn(a, b turnState) bool {
	return a.Began == b.Began && a.Since == b.Since && a.Waiting == b.Waiting && len(a.Inbox) == len(b.Inbox)
}
