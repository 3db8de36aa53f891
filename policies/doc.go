// Package policies holds the decisions of unstuck as small, pure,
// deterministic Go functions with no Temporal import: error classes, retry
// policies, canonical arguments (and, as they arrive, the loop detector,
// the breaker, the escalation ladder and argument repair). Workflow code
// only wires them, so each can be table-tested, fuzzed and benchmarked on
// its own.
package policies
