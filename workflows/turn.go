package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/chat"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// A conversation (config.Agent.Conversation) does not end at its output.
// The output ends a turn: it is recorded as an output node, and the run
// waits in phase awaiting_user for the next message, which becomes the
// next task node; after idle_timeout without one, the run completes with
// its last output. A message that comes while the run works joins the
// conversation after the current step (double_text: enqueue), or is
// refused (reject), or cuts the model request in flight short
// (interrupt, rollback). Both shapes end a turn here (settle's output,
// step_settle.go): a graph walks from its start node again for the next
// message. The turn's state, the inbox and what a message does are
// package chat's (chat.go wires it); this file waits for the next
// message.

// turns ends a conversation's turns and begins the next at its message
// (package chat owns the turn's state). Made for each use, over the
// runner it is called on.
type turns struct{ r *runner }

func (r *runner) turns() turns { return turns{r} }

// endTurn records a conversation's output and goes on with its next
// message (nextMessage).
func (t turns) endTurn(ctx workflow.Context, o stepOutput) (bool, *AgentResult, error) {
	r := t.r
	out := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindOutput, Status: signals.StatusCompleted, Parents: []string{o.parent}, Output: o.value, GraphNode: o.graphNode,
	}, Step: r.run.Step})
	r.run.EndedTurn(out.ID)
	r.chat().Answered(o.value)
	return t.nextMessage(ctx)
}

// nextMessage begins the conversation's next turn with the oldest message
// waiting, or waits for one in phase awaiting_user (at a pending task
// node) for idle_timeout. done: the run ended (completed idle with its
// last output, cancelled), an edit came first (errInterrupted), or the run
// continues as new while it waits.
func (t turns) nextMessage(ctx workflow.Context) (bool, *AgentResult, error) {
	r := t.r
	c := r.chat()
	if c.Queued() {
		c.Take(ctx, "")
		return t.beginTurn(ctx)
	}
	node := r.run.Turn.Waiting
	if node == "" {
		node = r.addNode(ctx, Node{Node: signals.Node{Kind: signals.KindTask, Status: signals.StatusPending, Parents: r.run.Frontier}, Step: r.run.Step}).ID
		c.WaitAt(node)
	}
	if err := r.setPhase(ctx, signals.PhaseAwaitingUser); err != nil {
		return true, nil, err
	}
	end, timeout, err := r.person().Wait(ctx, person.Wait{
		Node: node, Summary: "wait for the user's next message (" + node + ")",
		Answered: c.Queued,
		Edits:    true, Switches: true, Timeout: r.run.Spec.Agent.Conversation.IdleTimeout.D(),
	})
	switch {
	case err != nil && cancelled(ctx, err):
		return true, nil, r.cancelled(ctx, node)
	case err != nil:
		return true, nil, err
	case end == person.Switching:
		return true, nil, r.waiting().Continue(ctx, stepWaits{turn: node})
	}
	c.Waited()
	r.waits.Forget(node)
	switch end {
	case person.Interrupted:
		r.skipNode(ctx, node, "no message taken: "+r.waiting().InterruptedWhile())
		return true, nil, errInterrupted
	case person.TimedOut:
		if c.Queued() { // a message came with the deadline
			c.Take(ctx, node)
			return t.beginTurn(ctx)
		}
		r.skipNode(ctx, node, fmt.Sprintf("no message within idle_timeout (%s): the conversation ended with its last output", timeout))
		res, err := r.outputs().completed(ctx, r.run.Turn.LastOutput)
		return true, res, err
	}
	c.Take(ctx, node)
	return t.beginTurn(ctx)
}

// beginTurn starts a turn at the message just taken: the run works again,
// its step ceiling counts from here, its loops are its own
// (ladder.Escape.FreshTurn), and a graph walks from its start.
func (t turns) beginTurn(ctx workflow.Context) (bool, *AgentResult, error) {
	r := t.r
	r.chat().Begin(r.run.Step, r.run.Frontier[0])
	r.escape().FreshTurn(ctx)
	r.shape.fromStart()
	if err := r.setPhase(ctx, signals.PhaseRunning); err != nil {
		return true, nil, err
	}
	return false, nil, nil
}

// resumeTurn, as a generation that a conversation continued while it
// waited for the next message starts, waits at the same node again (its
// start kept: expectCarriedWaits).
func (t turns) resumeTurn(ctx workflow.Context) (bool, *AgentResult, error) {
	r := t.r
	if r.run.Turn.Waiting == "" {
		return false, nil, nil
	}
	r.run.Resume = nil // what it carried is the turn's wait
	return t.nextMessage(ctx)
}

// resumedEdit says whether an edit (or a person's handoff) ended the wait
// a generation resumed for the next message, to be carried out as it is
// in any other wait. A run recorded before failed with the interruption
// (version resumed-turn-edit, asked only for such an edit).
func (t turns) resumedEdit(ctx workflow.Context, err error) bool {
	r := t.r
	return errors.Is(err, errInterrupted) && r.life.Interrupting() && ctx.Err() == nil && versionOf(ctx, versionResumedTurnEdit, 1) >= 1
}

// messageText is what a task node asks: the run's task, or a
// conversation's message.
func messageText(run *Run, n *Node) string {
	if text, ok := messageOf(n); ok {
		return text
	}
	return taskText(run)
}

// turnTask is what the run is asked now: the message of a conversation's
// turn under way, or the run's task.
func turnTask(run *Run) string {
	if n := run.node(run.Turn.Began); n != nil {
		return messageText(run, n)
	}
	return taskText(run)
}

// isMessage says whether a task node is a conversation's message (or the
// wait for one), not the run's task.
func isMessage(n *Node) bool {
	_, ok := messageOf(n)
	return ok || n.Status == signals.StatusPending || n.Status == signals.StatusSkipped
}

// messageOf is the text of a conversation's message node.
func messageOf(n *Node) (string, bool) { return chat.Message(n.Args) }
