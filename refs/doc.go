// Package refs is the Variable References of the model protocol, by which a
// call's arguments read values of the run and its result is written into it.
// A string argument that is exactly †state.<path> or †input.<path>
// (optionally alternatives "a || b": the first that exists) names a value of
// the run instead of being one, and a call's _outputPath (†state.<path>)
// says where its result is written. The package parses references, finds
// them in arguments, resolves them against State and input, writes output
// paths and tells which paths overlap, so the workflow can order the calls
// of a step by what they read and write. State (state.go) decodes numbers
// exactly (Exact). It is pure, deterministic Go.
//
// Users: docs/how-it-works.md (Parallel calls and Variable References).
package refs
