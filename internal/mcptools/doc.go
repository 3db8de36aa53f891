// Package mcptools holds a worker's connections to Model Context Protocol (MCP) servers, so
// that an agent can use an MCP server's tools like its HTTP tools: listing a server's tools
// at run start, and calling one from the tool activity.
//
// It is built on the official Go SDK (github.com/modelcontextprotocol/go-sdk), which
// implements the spec's two transports: stdio (the worker starts the server program) and
// streamable HTTP.
//
// A Pool keeps one session per server, made on first use and shared by concurrent calls. A
// session that breaks (the program exited, the HTTP endpoint went away) is dropped and made
// again on the next use. The pool does not retry a failed call: the tool activity's retry
// policy does, and classifies failures by the error types here (UnavailableError is
// transient; ProtocolError and ToolError are answers). The one exception is a call that never
// left the worker because a reused session turned out to be dead: it is sent once more on a
// new session, since nothing reached the server.
//
// A call carries its idempotency key in _meta as "dev.unstuck/idempotency-key", so a server
// that honours it can make Temporal's retries of a call safe.
//
// Users: docs/mcp.md.
package mcptools
