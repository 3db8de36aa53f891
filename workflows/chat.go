package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/chat"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// A conversation's turns, its inbox and what a message does to the turn
// under way are package chat's: it owns their state (the run's Turn).
// This file wires it to the run; turn.go waits for the next message.

// chat is the run's conversation, over the run's state as it is now.
func (r *runner) chat() *chat.Conversation {
	return chat.New(chat.Parts{
		State: &r.run.Turn, Agent: &r.run.Spec.Agent, Run: chatRun{r}, Version: versionOf, Gates: chatGates,
	})
}

// chatGates are the gates the conversation asks (versions.go).
var chatGates = chat.Gates{TurnEdit: versionTurnEdit, CutInLedger: versionCutInLedger}

// chatTrace is what the conversation reads of the run's trace
// (chat.Trace).
type chatTrace struct{ run *Run }

func (t chatTrace) Len() int            { return len(t.run.Nodes) }
func (t chatTrace) Index(id string) int { return t.run.nodeIndex(id) }
func (t chatTrace) Archived() bool      { return t.run.Archived != nil }

func (t chatTrace) At(i int) chat.Node {
	n := &t.run.Nodes[i]
	return chat.Node{
		ID: n.ID, Kind: n.Kind, Status: n.Status, Parents: n.Parents, Args: n.Args, Step: n.Step,
		CutIn: n.NotRun == life.CutIn,
	}
}

// chatRun is what the conversation reads of and asks of the run
// (chat.Run).
type chatRun struct{ r *runner }

func (c chatRun) Len() int            { return chatTrace{c.r.run}.Len() }
func (c chatRun) At(i int) chat.Node  { return chatTrace{c.r.run}.At(i) }
func (c chatRun) Index(id string) int { return chatTrace{c.r.run}.Index(id) }
func (c chatRun) Archived() bool      { return chatTrace{c.r.run}.Archived() }
func (c chatRun) Ended() bool         { return c.r.life.Ended() }
func (c chatRun) HandedOver() bool    { return c.r.run.lastHandoff() >= 0 }

func (c chatRun) CutShort(ctx workflow.Context, id, why string) {
	c.r.notRunNode(ctx, id, life.CutIn, why)
}

// Record records a message taken as a task node: the one the run waited
// at (node), or a new one.
func (c chatRun) Record(ctx workflow.Context, node string, m signals.MessageRequest) {
	r := c.r
	args := mustJSON(map[string]any{"message": m.Text, "by": m.By})
	n := r.run.node(node)
	if n == nil {
		n = r.addNode(ctx, Node{Node: signals.Node{Kind: signals.KindTask, Parents: r.run.Frontier}, Step: r.run.Step})
	}
	n.Args, n.Status, n.At, n.By = args, signals.StatusCompleted, workflow.Now(ctx).UTC(), m.By
	r.run.TookMessage(n.ID)
}

// RollBack invalidates every node of the turn under way after its start
// (node i: its message, or the run's task in the first turn), and goes on
// from there (a graph from its start node). What a write did is not done
// twice: the effect ledger answers the same write again with its recorded
// result (pipeline.ledger, call_stages.go).
func (c chatRun) RollBack(ctx workflow.Context, i int) {
	run := c.r.run
	run.RestartedTurn(i, workflow.Now(ctx))
	c.r.shape.fromStart()
	// What the model was sent is no longer the conversation's start: the
	// next request sends it whole.
	run.sendWhole()
}
