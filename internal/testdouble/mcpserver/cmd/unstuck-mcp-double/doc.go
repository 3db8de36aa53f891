// Command unstuck-mcp-double serves the MCP test double (internal/testdouble/mcpserver) over
// stdio, or over streamable HTTP with --http. It is a TEST DOUBLE, for tests and demos of
// unstuck's MCP tools, not a useful MCP server.
package main
