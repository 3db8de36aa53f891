package chat

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// ErrCutIn ends a model request a conversation's message cut short.
var ErrCutIn = errors.New("a message cut in")

// CutInText begins the error of a model request a message cut short.
const CutInText = "abandoned: the user sent a message"

// CutIn ends the model request reqID that a message cut short: the
// request is abandoned (so it spends no more), and the message joins the
// conversation before the next (TakeQueued). With rollback, what the turn
// did since its message is invalidated first: the model reads the turn's
// message, then the new one. No call is cut: a request's calls start only
// once its reply is in, and the message then waits for the step's end.
func (c *Conversation) CutIn(ctx workflow.Context, reqID string) error {
	c.run.CutShort(ctx, reqID, CutInText+" (double_text: "+c.agent.DoubleText+")")
	if c.agent.DoubleText == config.DoubleTextRollback {
		if i := c.Start(); i >= 0 {
			c.run.RollBack(ctx, i)
		}
	}
	return ErrCutIn
}

// CutInWrite says whether the turn under way ran a write before a message
// last cut the turn's model request short, that the write asked for now
// repeats: found says whether the calls at from..to ran it (it keeps what
// it found). With interrupt what the turn did stays, and the model, asked
// again with the message, may ask for the same write again: the effect
// ledger answers it, so it is not made twice. A run recorded before the
// change runs it again (gate cut-in-ledger, asked only when such a write
// is found).
func (c *Conversation) CutInWrite(ctx workflow.Context, found func(from, to int) bool) bool {
	if c.agent.Conversation == nil {
		return false
	}
	start := c.Start()
	cut := -1
	for i := c.run.Len() - 1; i > start && cut < 0; i-- {
		if n := c.run.At(i); n.Kind == signals.KindRequest && n.Status == signals.StatusFailed && n.CutIn {
			cut = i
		}
	}
	if cut < 0 || !found(start+1, cut) {
		return false
	}
	return c.version(ctx, c.gates.CutInLedger, 1) != workflow.DefaultVersion
}
