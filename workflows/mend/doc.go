// Package mend repairs the arguments of a run's tool calls: arguments that
// fail the tool's schema before the call runs (Before), arguments a tool
// refused as invalid_args (After), and a call's arguments that are not a
// JSON object at all (Text). Rules come first, without a model; what needs
// judgement goes to one focused model request (an activity), within the
// run's budget. Each attempt is a repair node in the trace, and a call gets
// at most the agent's repair.max_attempts of them.
//
// A Mender owns that state for one generation (Attempts: the repair
// attempts made per call node, and the arguments each call was issued
// with, so a repair never re-issues arguments the tool already refused).
// It is not carried in the run's JSON: a step's repairs end within the
// step. What it needs of the run (its spec, its schemas, its trace, its
// budget, its gates) it asks through Host, which the run implements.
//
// Not to be confused with policies/repair, the pure rules (which
// strategy mends which value, read from a schema or a refusal's message):
// this package decides when the run asks them, which rule set a recorded
// run replays with, when the model is asked instead, and what the trace
// and the counters record of it. Nor with the agent's repair policy
// (policies.repair in its config, config.RepairPolicy), which it reads.
package mend
