// Package model is a run's model call, as far as it is the call's own:
// which model the run asks (its fallbacks, and how long it stays on
// one), the heartbeat a model request keeps and whether it streams its
// calls, the prompt's token budget and the compactions a request over it
// takes (clearing old results, or a summary of the oldest turns), asking
// again for a longer reply when one was cut off inside a call's
// arguments, and whether a reply that answered nothing is counted.
//
// It owns that state: the model in use is carried in the run
// (workflows.Run embeds State: its fields are the run's JSON fields, so
// crashes and continue-as-new keep them unchanged), and what one
// generation remembers of the requests not answered yet (the
// compactions and longer replies their nodes will show) is Memory, held
// by the runner and changed only here.
//
// The rules are pure functions in policies/; this package wires them to
// the state and asks the version gates where the behaviour changed, each
// where it was asked before. What it does to the rest of the run (a
// fallback's escalation node, a metric, a summary of the oldest turns,
// the conversation sent whole again) goes through Run, which the runner
// implements; the gates' ids and the version function come from the
// runner, so the package never imports workflows.
//
// The request itself (its trace node, the conversation it sends, the
// budget it is asked within, the streamed reply) stays with the runner
// (workflows/step.go), which asks this package at each of those points.
package model
