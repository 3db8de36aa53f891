package mcptools

import "fmt"

// UnavailableError is a failure to reach a server: it cannot be started or connected to,
// the transport failed, the server exited mid-call, or the call timed out. It is transient:
// the call may be retried (on a new session).
type UnavailableError struct {
	Server string
	Err    error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("mcp server %q: %v", e.Server, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// ProtocolError is a JSON-RPC error answer, such as -32602 (invalid params) for an unknown
// tool. Tool is empty for a failed tools/list.
type ProtocolError struct {
	Server  string
	Tool    string
	Code    int64
	Message string
}

func (e *ProtocolError) Error() string {
	if e.Tool == "" {
		return fmt.Sprintf("mcp server %q: listing tools: JSON-RPC error %d: %s", e.Server, e.Code, e.Message)
	}
	return fmt.Sprintf("mcp server %q: tool %q: JSON-RPC error %d: %s", e.Server, e.Tool, e.Code, e.Message)
}

// ToolError is a tool's answer with isError set: the tool ran and failed. Text is its
// content's text, joined.
type ToolError struct {
	Server string
	Tool   string
	Text   string
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("mcp server %q: tool %q failed: %s", e.Server, e.Tool, e.Text)
}
