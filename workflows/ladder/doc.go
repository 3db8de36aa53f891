// Package ladder is a run's loop escape: the loop detector, the time
// window, the struggle, the breakers and the escalation ladder, and the
// record of the loops met and the rungs climbed. It owns that state: it
// is carried in the run (workflows.Run embeds State, and Escape holds
// pointers to the few fields of the run's other parts it keeps), so it
// survives crashes and continue-as-new with its JSON unchanged, and only
// this package changes it.
//
// The rules are pure functions in policies/; this package wires them to
// the state and asks the version gates where the rules changed. What it
// reads of the run (its trace's calls, its State, the graph's visit
// counts) comes through Run; the gates' ids and the version function come
// from the runner, so the package never imports workflows.
//
// Carrying out a rung's effects on the run stays with the runner
// (workflows/escalation.go): a rollback invalidates trace nodes and
// continues as new, a handoff switches agents, the human rung waits for a
// person, explore's edge is taken by the graph walk. Escape answers what
// those effects need (which rung, the loop's calls, where a rollback goes
// back to) and keeps its own bookkeeping of them.
package ladder
