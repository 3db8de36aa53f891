package chat

import (
	"go.temporal.io/sdk/workflow"
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

// Edited makes the turn of the edited node (nodeID) the turn under way,
// and, for a fork, leaves its source's waiting messages and wait behind.
// A run recorded before the change kept the turn it was in (gate
// turn-edit, asked only when the two differ).
func (c *Conversation) Edited(ctx workflow.Context, nodeID string, fork bool) {
	if c.agent.Conversation == nil {
		return
	}
	t := *c.s
	want := t
	at := c.run.Index(nodeID)
	if b := c.run.Index(t.Began); at >= 0 && (b > at || (t.Began != "" && b < 0)) {
		// The turn under way began after the edited node (or is no longer
		// in the trace): find the node's own.
		if began, since, known := TurnOf(c.run, at); known {
			want.Began, want.Since = began, since
		}
	}
	if fork {
		want.Inbox, want.Waiting = nil, ""
	}
	if sameTurn(t, want) || c.version(ctx, c.gates.TurnEdit, 1) < 1 {
		return
	}
	*c.s = want
}

// sameTurn says whether an edit leaves a conversation's turn as it was.
func sameTurn(a, b State) bool {
	return a.Began == b.Began && a.Since == b.Since && a.Waiting == b.Waiting && len(a.Inbox) == len(b.Inbox)
}
