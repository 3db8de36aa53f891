// Package handoff is a run's handoffs: passing the run, with its whole
// context, to the agent best placed to finish it. Whatever asks for one
// (the model's handoff tool, a person's handoff message, the ladder's
// handoff rung, the agent's rules, a person handing a run back), it goes
// the same way: a handoff node, the agents' live load read by an activity
// (so the choice replays), policies.ChooseHandoff, and the first candidate
// the worker can resolve takes the run over; the run then continues as
// new as that agent.
//
// Handoffs owns that state: the agents the run has been with and the
// handoff rules' bookkeeping (carried in the run as HandoffPath,
// RulesSeen and RulesSpent, their JSON unchanged, changed only here), and
// what one generation remembers (Memory: whether the run hands over at
// all, the person's handoff accepted, the handoff call of the step under
// way), held by the runner. It also says which agents a handoff may name
// and refuses a message that comes while the run is handed over.
//
// What it needs of the run (its spec, nodes added and settled, the
// activities that resolve an agent and read the agents' load, the
// context the agent taking over reads, the run becoming that agent's, a
// stop or a continue-as-new) it asks through Host, which the runner
// implements; the gates' ids and the version function come from the
// runner, so the package never imports workflows. The rules themselves
// (the choice, the refusals, the rules that fire) are pure functions in
// policies/.
//
// The handoff context (workflows.HandoffContext) stays with the runner:
// it is built from the trace and the conversation the runner derives
// from it, and a recorded one that does not decode is named by its type.
package handoff
