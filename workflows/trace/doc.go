// Package trace is a run's trace: its nodes, where the next step follows
// from (the frontier), and where the trace's archived part is. It owns
// that state: it is carried in the run (workflows.Run embeds Trace, so
// its fields are the run's own JSON fields, unchanged), and only this
// package adds nodes, settles, invalidates or drops them, hands out their
// ids, or moves the frontier.
//
// The frontier's moves are named by why the next step follows from where
// it does (a model's reply, a step's calls, a refused output, a person's
// answer, an edit, a rollback, a handoff), so a reader finds every way it
// moves here. Deciding what to add or roll back stays with the runner,
// and so do the version gates: nothing here asks one, and the package
// never imports workflows.
package trace
