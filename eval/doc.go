// Package eval turns recorded runs into regression tests: a case file
// holds what a run was asked (agent, task, input) and what its tools
// answered, keyed by tool and arguments, so the run can be done again
// against a new model, prompt or config with its tools emulated from the
// recording (`unstuck eval export`, `unstuck eval run`).
package eval
