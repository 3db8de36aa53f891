// Package chat is a conversation's turns (config.Agent.Conversation): the
// turn under way and where it began, the inbox of messages accepted and
// not taken yet and its bound, what a message does to the turn under way
// (double_text: enqueue, reject, interrupt, rollback), and which turn an
// edit makes the current one. It owns that state: workflows.Run carries it
// as Turn (State, its JSON unchanged), so it survives crashes and
// continue-as-new, and only this package changes it.
//
// What it reads of the run's trace (Trace) and what it asks of the run
// (Run: record a message taken, mark a request a message cut short, roll
// the turn back) come through interfaces the runner implements, and the
// version gates' ids and the version function are passed in, so the
// package never imports workflows.
//
// The wait for the next message, the run's phase and the model's
// conversation stay with the runner (workflows/turn.go, conversation.go):
// they read this package's state and call it to change it.
package chat
