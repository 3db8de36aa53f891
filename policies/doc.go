// Package policies holds the decisions of unstuck as small, pure,
// deterministic Go functions with no Temporal import, each with table tests.
// They are: error classes and retry policies, canonical arguments and call
// events (the loop detector's signatures), the loop detector, the circuit
// breaker, the escalation ladder and the choice of its rung, fallback
// routing, graph edges (the next edge, the way off a cycle), the spans of
// loop events, the step decision, what an edit invalidates (lineage.go), the
// choice of a handoff target (handoff.go) and the rules that hand a run over
// by themselves (handoff_rules.go). Argument repair is in policies/repair.
// Time and inputs are passed in; workflow code only wires the functions, so
// each can be tested, fuzzed and benchmarked on its own.
//
// Users: loops, breakers and the ladder, docs/loops.md; handoffs,
// docs/handoffs.md.
package policies
