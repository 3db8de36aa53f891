package ledger

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// ExecutedWrite is the call that already ran this exact write (tool and
// canonical arguments) and that a re-issued write repeats, if any: the
// latest invalidated one (an edit, a rollback) that no standing call has
// answered for yet, else one the turn made before a message cut it short
// (Host.CutInWrite). Once answered for, the same write again (a later
// turn's, say) is a new write, as it would be had nothing been
// invalidated.
func (l *Ledger) ExecutedWrite(ctx workflow.Context, tool string, args json.RawMessage) *trace.Node {
	n := l.invalidatedWrite(tool, args, func(n *trace.Node) bool { return n.Executed })
	if n != nil && (!n.Answered || !l.host.Latest(ctx)) {
		return n
	}
	var cut *trace.Node
	if !l.host.CutInWrite(ctx, func(from, to int) bool {
		cut = l.SameWrite(tool, args, from, to, func(n *trace.Node) bool { return n.Status == signals.StatusCompleted && n.Executed })
		return cut != nil
	}) {
		return nil
	}
	return cut
}

// AnsweredFor marks the invalidated write priorID as answered for by a
// standing call: the ledger gives it no more.
func (l *Ledger) AnsweredFor(priorID string) {
	if n := l.host.Node(priorID); n != nil && n.Status == signals.StatusInvalidated {
		n.Answered = true
	}
}

// Reused records that call id was answered with the result of the write
// priorID made, which is then answered for.
func (l *Ledger) Reused(id, priorID string) {
	if n := l.host.Node(id); n != nil {
		n.ReusedFrom = priorID
	}
	l.AnsweredFor(priorID)
}

// Executed records that call n ran to a result (or the ledger answered
// for it): the same write re-issued once n is invalidated is not run
// twice.
func Executed(n *trace.Node) { n.Executed = true }
