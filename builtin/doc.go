// Package builtin is the registry of tools written in Go and run inside the
// worker (`builtin: <name>` in the config), beside HTTP tools. The demo's
// tools live here, as do small utility tools (echo, noop) used by tests and
// benchmarks. A built-in tool is called by the tool activity exactly like an
// HTTP tool, with the same idempotency key, errors and retry policy.
//
// Users: a tool's builtin key, docs/configuration.md (tools[].builtin).
package builtin
