package chat

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A message that comes while the run works joins the conversation after
// the current step (double_text: enqueue), is refused (reject), or cuts
// the model request in flight short (interrupt, rollback: cut.go).
// Messages wait in the inbox, carried across continue-as-new, so none is
// lost between generations.

// Wanted says why the run does not take a message now, if it does not. A
// message signal that reaches a run continuing as new is taken too: it
// waits in the inbox the next generation carries.
func (c *Conversation) Wanted() error {
	a := c.agent
	switch {
	case a.Conversation == nil && c.run.HandedOver():
		return fmt.Errorf("message: the run was handed to agent %s, which is not a conversation (its config has no conversation:): it finishes what it was handed and the run ends with its output; start a new run for a new task", a.Name)
	case a.Conversation == nil:
		return fmt.Errorf("message: agent %s is not a conversation (its config has no conversation:): start a new run for a new task", a.Name)
	case c.run.Ended():
		return errors.New("message: the conversation has ended (completed or stopped): start a new run, or fork it from the model request that gave its last answer")
	case len(c.s.Inbox) >= MaxInbox:
		return fmt.Errorf("message: %d messages already wait to be taken: send it again once the run has taken them", MaxInbox)
	case a.DoubleText == config.DoubleTextReject && c.s.Waiting == "":
		return errors.New("message: the run is working on the last message and its agent's double_text is reject: send it again when the run is awaiting_user")
	}
	return nil
}

// Accept is where a valid message lands, from the update or the signal:
// it waits in the inbox until the run takes it.
func (c *Conversation) Accept(req signals.MessageRequest) (signals.MessageResult, error) {
	if err := c.Wanted(); err != nil {
		return signals.MessageResult{}, err
	}
	c.s.Inbox = append(c.s.Inbox, req)
	return signals.MessageResult{Queued: len(c.s.Inbox)}, nil
}

// Queued says whether messages wait in the inbox.
func (c *Conversation) Queued() bool { return len(c.s.Inbox) > 0 }

// TakeQueued, between steps, takes the messages that came while the run
// worked into the conversation (double_text: enqueue).
func (c *Conversation) TakeQueued(ctx workflow.Context) {
	for len(c.s.Inbox) > 0 {
		c.Take(ctx, "")
	}
}

// Take records the oldest message of the inbox as a task node: the one
// the run waited at (node), or a new one.
func (c *Conversation) Take(ctx workflow.Context, node string) {
	m := c.s.Inbox[0]
	c.s.Inbox = c.s.Inbox[1:]
	c.run.Record(ctx, node, m)
}

// CutsIn says whether a message waits and the agent's double_text has it
// cut the model request in flight short (interrupt, rollback).
func (c *Conversation) CutsIn() bool {
	a := c.agent
	return a.Conversation != nil && len(c.s.Inbox) > 0 &&
		(a.DoubleText == config.DoubleTextInterrupt || a.DoubleText == config.DoubleTextRollback)
}
