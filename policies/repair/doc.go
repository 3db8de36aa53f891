// Package repair mends tool-call arguments that fail the tool's JSON Schema,
// or that a tool rejected at run time, without a model request when the fix
// is mechanical. For example: "2" for an integer, "Oct 26, 2024" for a date,
// "business class" for the enum value "business", 0 passengers for a minimum
// of 1, a missing property the schema gives a default.
//
// A fix that needs judgement (a missing value with no default, a string
// that does not match a pattern, an ambiguous date such as 03/04/2024) is
// never guessed: it is left in Result.Unrepaired for the workflow to ask a
// model about, with a focused request.
//
// Everything here is pure, deterministic Go with no Temporal import, no
// wall clock, no goroutines and no order-dependent map iteration, because
// the workflow calls it from workflow code and must replay it. Every loop
// is bounded: a fixed number of rounds, a depth and size cap on the
// arguments, caps on the text that is parsed.
//
// Users: docs/repair.md.
package repair
