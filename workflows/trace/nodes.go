package trace

import (
	"time"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// Add appends a node to the trace, giving it an id, the agent (when it
// names none) and the time, and answers a pointer valid until the next
// Add.
func (t *Trace) Add(n Node, agent string, at time.Time) *Node {
	n.ID = t.newID()
	if n.Agent == "" {
		n.Agent = agent
	}
	if n.Parents == nil {
		n.Parents = []string{}
	}
	n.At = at.UTC()
	t.Nodes = append(t.Nodes, n)
	return &t.Nodes[len(t.Nodes)-1]
}

// Finish settles a node as completed (output) or failed (error text).
func (t *Trace) Finish(id string, output []byte, errText string, at time.Time) {
	n := t.Node(id)
	if n == nil {
		return
	}
	n.NotRun = "" // NotRun says why, when the run's life stopped it
	if errText != "" {
		n.Status = signals.StatusFailed
		n.Error = errText
	} else {
		n.Status = signals.StatusCompleted
		n.Output = output
	}
	n.At = at.UTC()
}

// Skip settles a node as skipped, saying why: what it stood for did not
// happen, and nothing failed.
func (t *Trace) Skip(id, why string, at time.Time) {
	if n := t.Node(id); n != nil {
		n.Status, n.Error, n.NotRun, n.At = signals.StatusSkipped, why, "", at.UTC()
	}
}

// NotRun records why a node just settled did not run.
func (t *Trace) NotRun(id string, why life.NotRun) {
	if n := t.Node(id); n != nil {
		n.NotRun = why
	}
}

// Settle counts a completed call in the order calls completed: an edit
// rebuilds State from their writes in that order.
func (t *Trace) Settle(n *Node) {
	t.Settles++
	n.Settled = t.Settles
}

// Invalidate marks nodes as no longer standing (an edit took away what
// they depended on): see invalidate.
func (t *Trace) Invalidate(ids []string, at time.Time) {
	for _, id := range ids {
		if n := t.Node(id); n != nil {
			n.invalidate(at)
		}
	}
}

// invalidate marks a node as no longer standing. It keeps what it did,
// for the trace and the effect ledger, and gives up its checkpoint: an
// invalidated node is never edited. at is when: a follower of the run
// reads what changed since a time.
func (n *Node) invalidate(at time.Time) {
	n.Status, n.At = signals.StatusInvalidated, at.UTC()
	n.Checkpoint = nil
}

// Drop removes nodes from the trace: a fork's edit invalidated them (they
// are the source's future, not the fork's past). Ids keep counting from
// the source's, so none is given twice.
func (t *Trace) Drop(ids []string) {
	drop := map[string]bool{}
	for _, id := range ids {
		drop[id] = true
	}
	kept := t.Nodes[:0]
	for _, n := range t.Nodes {
		if !drop[n.ID] {
			kept = append(kept, n)
		}
	}
	t.Nodes = kept
}

// Running: the call's tool activity starts now; the node is answered for
// the caller to record what it runs with.
func (t *Trace) Running(id string, at time.Time) *Node {
	n := t.Node(id)
	if n != nil {
		n.Status, n.At = signals.StatusRunning, at.UTC()
	}
	return n
}

// AwaitingApproval: the call waits for a person's approval.
func (t *Trace) AwaitingApproval(id string, at time.Time) {
	if n := t.Node(id); n != nil {
		n.Status, n.At = signals.StatusAwaitingApproval, at.UTC()
	}
}

// Cancelled: the run was cancelled while the node ran; it is skipped,
// its error saying so.
func (t *Trace) Cancelled(id string, at time.Time) {
	t.Finish(id, nil, "canceled", at)
	if n := t.Node(id); n != nil {
		n.Status = signals.StatusSkipped
	}
}

// Node finds a node by id (nil when the trace has none).
func (t *Trace) Node(id string) *Node {
	if i := t.Index(id); i >= 0 {
		return &t.Nodes[i]
	}
	return nil
}

// Index is a node's place in the trace (-1 when it is not there).
func (t *Trace) Index(id string) int {
	for i := len(t.Nodes) - 1; i >= 0; i-- {
		if t.Nodes[i].ID == id {
			return i
		}
	}
	return -1
}
