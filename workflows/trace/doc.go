// Package trace is a run's trace: its nodes, where the next step follows
// from (the frontier), and where the trace's archived part is. It owns
// that state: it is carried in the run (workflows.Run embeds Trace, so
// its fields are the run's own JSON fields, unchanged), and only this
// package adds nodes, drops them, hands out their ids, counts the calls
// settled, archives the oldest part, or moves the frontier
// (workflows/trace_owner_test.go holds the rest of workflows/ to that).
// The common moves of a node's status (finished, skipped, running,
// awaiting approval, cancelled, invalidated, checkpointed) are here too;
// what the other parts record on a node they hold (a call's arguments and
// class, a handoff's refusals) they still set themselves.
//
// The frontier's moves are named by why the next step follows from where
// it does (a model's reply, a step's calls, a refused output, a person's
// answer, an edit, a rollback, a handoff), so a reader finds every way it
// moves here. Deciding what to add or roll back stays with the runner,
// and so do the version gates: nothing here asks one, and the package
// never imports workflows.
package trace
