// Package edit is a run's edits and forks (docs/contract.md "edit"): a
// person replaces a node's output (the task, a model request's thought
// and calls, a call's result, a person's reply) or a call's arguments;
// what depended on the node is invalidated, and the run continues as new
// from it, or a fork, a new workflow, starts from it.
//
// Edits owns what that takes: whether an edit can apply now, naming what
// is wrong (the update's validator and the signal both ask); the edit
// accepted in this generation and its answer (Memory, held by the
// runner); a call waiting for approval whose arguments a person changed
// in place; applying an edit (policies.PlanEdit decides what it
// invalidates and which calls run again); the checkpoints of the loop
// escape and counters kept on the latest request and human nodes, which
// an edit puts back; State rebuilt from the calls that stay; the note of
// a person's reply the model read, changed with the reply; and the fork's
// child workflow.
//
// What it asks of the run (its spec, its nodes added, its phase, where
// the next generation resumes, the conversation's turn) comes through
// Host, which the runner implements; what differs between a free-form
// run and a graph it asks through Shape, so the package never imports
// workflows. The run's other parts keep what they own: an edit restores
// their state whole from a checkpoint (Counters), and the first step of
// the next generation, which finishes the edited request's calls, is the
// run's shape's (workflows/edit_resume.go).
package edit
