// Package workflows holds AgentWorkflow, the durable agent loop: the run
// state (trace graph, State, counters), the step loop of model requests and
// tool calls, the queries that read the run, and continue-as-new. It is
// deterministic Temporal workflow code: no I/O, no wall clock, no ranging
// over maps in order-dependent code; every side effect is an activity.
package workflows
