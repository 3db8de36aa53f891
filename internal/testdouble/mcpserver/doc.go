// Package mcpserver is a test double: a real MCP server, built with the official Go SDK's
// server side, that offers a few tools whose behaviour tests can rely on (echo, add, fail,
// slow, crash, bad_schema, text, image). It is never used in production; tests of the
// worker's MCP client (internal/mcptools) run it in-process over streamable HTTP (Handler)
// or as a stdio subprocess (cmd/unstuck-mcp-double).
//
// Every tool call is logged, when Options.Log is set, as one JSON line
// {"tool","args","idempotency_key","pid","in_flight"}, so a test can see what reached the
// server: the idempotency key from the call's _meta, which process answered (pid, to see a
// restart) and how many calls were running at once (in_flight, to see calls overlap).
//
// The tests that use it: docs/testing.md.
package mcpserver
