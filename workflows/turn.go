package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// A conversation (config.Agent.Conversation) does not end at its output.
// The output ends a turn: it is recorded as an output node, and the run
// waits in phase awaiting_user for the next message, which becomes the
// next task node; after idle_timeout without one, the run completes with
// its last output. A message that comes while the run works joins the
// conversation after the current step (double_text: enqueue), or is
// refused (reject). Both shapes end a turn here (settle's output,
// step_settle.go): a graph walks from its start node again for the next
// message. Messages wait in the run's state, carried across
// continue-as-new, so none is lost between generations.

// turnState is a conversation's state, carried with the run.
type turnState struct {
	// Inbox holds the messages accepted and not in the trace yet, oldest
	// first.
	Inbox []signals.MessageRequest `json:"inbox,omitempty"`
	// LastOutput is the last turn's output: the run's result when it ends
	// idle.
	LastOutput json.RawMessage `json:"last_output,omitempty"`
	// Since is the step the turn began at: the step ceiling counts a
	// turn's steps.
	Since int `json:"since,omitempty"`
	// Waiting is the task node the run waits at for the next message (""
	// while it works).
	Waiting string `json:"waiting,omitempty"`
	// Began is the task node of the turn under way: rollback invalidates
	// what came after it.
	Began string `json:"began,omitempty"`
}

// maxInbox bounds the messages waiting to be taken: past it, a message is
// refused (an update) or recorded and ignored (a signal).
const maxInbox = 32

// messageWanted says why a run does not take a message now, if it does
// not. A message signal that reaches a run continuing as new is taken
// too: it waits in the inbox the next generation carries.
func (r *runner) messageWanted() error {
	a := r.run.Spec.Agent
	switch {
	case a.Conversation == nil && r.run.lastHandoff() >= 0:
		return fmt.Errorf("message: the run was handed to agent %s, which is not a conversation (its config has no conversation:): it finishes what it was handed and the run ends with its output; start a new run for a new task", a.Name)
	case a.Conversation == nil:
		return fmt.Errorf("message: agent %s is not a conversation (its config has no conversation:): start a new run for a new task", a.Name)
	case r.life.Ended():
		return errors.New("message: the conversation has ended (completed or stopped): start a new run, or fork it from the model request that gave its last answer")
	case len(r.run.Turn.Inbox) >= maxInbox:
		return fmt.Errorf("message: %d messages already wait to be taken: send it again once the run has taken them", maxInbox)
	case a.DoubleText == config.DoubleTextReject && r.run.Turn.Waiting == "":
		return errors.New("message: the run is working on the last message and its agent's double_text is reject: send it again when the run is awaiting_user")
	}
	return nil
}

// acceptMessage is where a valid message lands, from the update or the
// signal: it waits in the inbox until the run takes it.
func (r *runner) acceptMessage(req signals.MessageRequest) (signals.MessageResult, error) {
	if err := r.messageWanted(); err != nil {
		return signals.MessageResult{}, err
	}
	r.run.Turn.Inbox = append(r.run.Turn.Inbox, req)
	return signals.MessageResult{Queued: len(r.run.Turn.Inbox)}, nil
}

// takeQueued, between steps, takes the messages that came while the run
// worked into the conversation (double_text: enqueue).
func (r *runner) takeQueued(ctx workflow.Context) {
	for len(r.run.Turn.Inbox) > 0 {
		r.takeMessage(ctx, "")
	}
}

// takeMessage records the oldest message of the inbox as a task node:
// the one the run waited at (node), or a new one.
func (r *runner) takeMessage(ctx workflow.Context, node string) {
	t := &r.run.Turn
	m := t.Inbox[0]
	t.Inbox = t.Inbox[1:]
	args := mustJSON(map[string]any{"message": m.Text, "by": m.By})
	n := r.run.node(node)
	if n == nil {
		n = r.addNode(ctx, Node{Node: signals.Node{Kind: signals.KindTask, Parents: r.run.Frontier}, Step: r.run.Step})
	}
	n.Args, n.Status, n.At = args, signals.StatusCompleted, workflow.Now(ctx).UTC()
	r.run.TookMessage(n.ID)
}

// endTurn records a conversation's output and goes on with its next
// message (nextMessage).
func (r *runner) endTurn(ctx workflow.Context, o stepOutput) (bool, *AgentResult, error) {
	out := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindOutput, Status: signals.StatusCompleted, Parents: []string{o.parent}, Output: o.value, GraphNode: o.graphNode,
	}, Step: r.run.Step})
	r.run.EndedTurn(out.ID)
	r.run.Turn.LastOutput = o.value
	return r.nextMessage(ctx)
}

// nextMessage begins the conversation's next turn with the oldest message
// waiting, or waits for one in phase awaiting_user (at a pending task
// node) for idle_timeout. done: the run ended (completed idle with its
// last output, cancelled), an edit came first (errInterrupted), or the run
// continues as new while it waits.
func (r *runner) nextMessage(ctx workflow.Context) (bool, *AgentResult, error) {
	t := &r.run.Turn
	if len(t.Inbox) > 0 {
		r.takeMessage(ctx, "")
		return r.beginTurn(ctx)
	}
	node := t.Waiting
	if node == "" {
		node = r.addNode(ctx, Node{Node: signals.Node{Kind: signals.KindTask, Status: signals.StatusPending, Parents: r.run.Frontier}, Step: r.run.Step}).ID
		t.Waiting = node
	}
	if err := r.setPhase(ctx, signals.PhaseAwaitingUser); err != nil {
		return true, nil, err
	}
	end, timeout, err := r.waitForPerson(ctx, personWait{
		node: node, summary: "wait for the user's next message (" + node + ")",
		answered: func() bool { return len(t.Inbox) > 0 },
		edits:    true, switches: true, timeout: r.run.Spec.Agent.Conversation.IdleTimeout.D(),
	})
	switch {
	case err != nil && cancelled(ctx, err):
		return true, nil, r.cancelled(ctx, node)
	case err != nil:
		return true, nil, err
	case end == waitSwitching:
		return true, nil, r.continueWaiting(ctx, stepWaits{turn: node})
	}
	t.Waiting = ""
	r.waits.forget(node)
	switch end {
	case waitInterrupted:
		r.skipNode(ctx, node, "no message taken: "+r.interruptedWhile())
		return true, nil, errInterrupted
	case waitTimedOut:
		if len(t.Inbox) > 0 { // a message came with the deadline
			r.takeMessage(ctx, node)
			return r.beginTurn(ctx)
		}
		r.skipNode(ctx, node, fmt.Sprintf("no message within idle_timeout (%s): the conversation ended with its last output", timeout))
		res, err := r.completed(ctx, t.LastOutput)
		return true, res, err
	}
	r.takeMessage(ctx, node)
	return r.beginTurn(ctx)
}

// beginTurn starts a turn at the message just taken: the run works again,
// its step ceiling counts from here, its loops are its own
// (ladder.Escape.FreshTurn), and a graph walks from its start.
func (r *runner) beginTurn(ctx workflow.Context) (bool, *AgentResult, error) {
	r.run.Turn.Since = r.run.Step
	r.run.Turn.Began = r.run.Frontier[0]
	r.escape().FreshTurn(ctx)
	if g := r.run.Spec.Agent.Graph; g != nil {
		r.run.GraphAt = g.Start
	}
	if err := r.setPhase(ctx, signals.PhaseRunning); err != nil {
		return true, nil, err
	}
	return false, nil, nil
}

// resumeTurn, as a generation that a conversation continued while it
// waited for the next message starts, waits at the same node again (its
// start kept: expectCarriedWaits).
func (r *runner) resumeTurn(ctx workflow.Context) (bool, *AgentResult, error) {
	if r.run.Turn.Waiting == "" {
		return false, nil, nil
	}
	r.run.Resume = nil // what it carried is the turn's wait
	return r.nextMessage(ctx)
}

// resumedEdit says whether an edit (or a person's handoff) ended the wait
// a generation resumed for the next message, to be carried out as it is
// in any other wait. A run recorded before failed with the interruption
// (version resumed-turn-edit, asked only for such an edit).
func (r *runner) resumedEdit(ctx workflow.Context, err error) bool {
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
func messageOf(n *Node) (string, bool) {
	var m struct {
		Message *string `json:"message"`
	}
	if json.Unmarshal(n.Args, &m) == nil && m.Message != nil {
		return *m.Message, true
	}
	return "", false
}

// errCutIn ends a model request a conversation's message cut short.
var errCutIn = errors.New("a message cut in")

// cutInText begins the error of a model request a message cut short.
const cutInText = "abandoned: the user sent a message"

// messageCutsIn: a message waits, and the agent's double_text has it cut
// the model request in flight short (interrupt, rollback).
func (r *runner) messageCutsIn() bool {
	a := r.run.Spec.Agent
	return a.Conversation != nil && len(r.run.Turn.Inbox) > 0 &&
		(a.DoubleText == config.DoubleTextInterrupt || a.DoubleText == config.DoubleTextRollback)
}

// cutIn ends the model request reqID that a message cut short: the
// request is abandoned (so it spends no more), and the message joins the
// conversation before the next (takeQueued). With rollback, what the turn
// did since its message is invalidated first: the model reads the turn's
// message, then the new one. No call is cut: a request's calls start only
// once its reply is in, and the message then waits for the step's end.
func (r *runner) cutIn(ctx workflow.Context, reqID string) error {
	why := cutInText + " (double_text: " + r.run.Spec.Agent.DoubleText + ")"
	r.notRunNode(ctx, reqID, life.CutIn, why)
	if r.run.Spec.Agent.DoubleText == config.DoubleTextRollback {
		r.rollBackTurn(ctx)
	}
	return errCutIn
}

// rollBackTurn invalidates every node of the turn under way after its
// message (the run's task, in the first turn), and goes on from there (a
// graph from its start node). What a write did is not done twice: the
// effect ledger answers the same write again with its recorded result
// (stage_ledger.go).
func (r *runner) rollBackTurn(ctx workflow.Context) {
	i := r.turnStart()
	if i < 0 {
		return
	}
	r.run.RestartedTurn(i, workflow.Now(ctx))
	if g := r.run.Spec.Agent.Graph; g != nil {
		r.run.GraphAt = g.Start
	}
	// What the model was sent is no longer the conversation's start: the
	// next request sends it whole.
	r.run.sendWhole()
}

// turnStart is where the turn under way begins in the trace: at its
// message, or at the run's task in the first turn (-1: neither is there).
func (r *runner) turnStart() int {
	if i := r.run.nodeIndex(r.run.Turn.Began); i >= 0 {
		return i
	}
	return slices.IndexFunc(r.run.Nodes, func(n Node) bool { return n.Kind == signals.KindTask })
}

// cutInWrite is the latest call of the turn under way that ran this exact
// write before a message last cut the turn's model request short, if
// any. With interrupt what the turn did stays, and the model, asked again
// with the message, may ask for the same write again: the effect ledger
// answers it (stage_ledger.go), so it is not made twice. A run recorded
// before the change runs it again (gate cut-in-ledger, asked only when
// such a write is found).
func (r *runner) cutInWrite(ctx workflow.Context, tool string, args json.RawMessage) *Node {
	if r.run.Spec.Agent.Conversation == nil {
		return nil
	}
	start := r.turnStart()
	cut := -1
	for i := len(r.run.Nodes) - 1; i > start && cut < 0; i-- {
		if n := &r.run.Nodes[i]; n.Kind == signals.KindRequest && n.Status == signals.StatusFailed && n.NotRun == life.CutIn {
			cut = i
		}
	}
	if cut < 0 {
		return nil
	}
	n := r.sameWrite(tool, args, start+1, cut, func(n *Node) bool { return n.Status == signals.StatusCompleted && n.Executed })
	if n == nil || versionOf(ctx, versionCutInLedger, 1) == workflow.DefaultVersion {
		return nil
	}
	return n
}
