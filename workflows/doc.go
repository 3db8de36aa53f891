// Package workflows holds AgentWorkflow, the durable agent loop. It wires
// Temporal to the rules of policies/ and does only Temporal's work:
// activities, timers, selectors, updates, signals and queries.
//
//   - run.go: the Run, the whole memory of a run and the continue-as-new
//     input (trace, progress, conversation, loop escape, graph walk).
//   - workflow.go, step.go: start, the step loop (one model request and its
//     calls), continue-as-new; graph.go walks an explicit graph instead.
//   - pipeline.go and stage_*.go: the one pipeline every tool call walks,
//     from the model or a graph tool node, one stage per file.
//   - ladder/ (package ladder): the loop detector, breakers and ladder and
//     their state; loops.go wires it to the run, escalation.go carries out
//     the ladder's rungs.
//   - person/ (package person): the waits for a person (approvals, a
//     reply, a person agent); person.go wires it to the run, and
//     messages.go, queries.go take what people send in and answer.
//
// It is deterministic Temporal workflow code: no I/O, no wall clock, no
// ranging over maps in order-dependent code; every side effect is an
// activity, and every change of behaviour is gated with GetVersion
// (versions.go).
//
// Users: what a run does, docs/how-it-works.md; the code's layout and
// the life of a call, docs/architecture.md.
package workflows
