package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/mcptools"
	"github.com/unstuck-dev/unstuck/policies"
)

// MCPConnections is the worker's connections to its MCP servers
// (internal/mcptools.Pool): one session per server, shared by every run.
type MCPConnections interface {
	List(ctx context.Context, server string) ([]mcptools.Tool, error)
	Call(ctx context.Context, server, tool string, args json.RawMessage, idempotencyKey string) (json.RawMessage, error)
}

// redactMCP shows the MCP servers' URLs in text without their query or
// user info, as an HTTP tool's errors show its URL: the text goes to the
// run's history, and a token may ride in a URL.
func (a *Activities) redactMCP(text string) string {
	for _, s := range a.config.MCPServers {
		if s.URL != "" {
			text = strings.ReplaceAll(text, s.URL, safeURL(s.URL))
		}
	}
	return text
}

// jsonRPCInvalidParams is JSON-RPC's error code for invalid params.
const jsonRPCInvalidParams = -32602

// mcpServers is the config's MCP servers as the pool takes them.
func mcpServers(cfg *config.File) []mcptools.ServerConfig {
	out := make([]mcptools.ServerConfig, 0, len(cfg.MCPServers))
	for _, s := range cfg.MCPServers {
		out = append(out, mcptools.ServerConfig{
			Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env,
			URL: s.URL, Headers: s.Headers, Timeout: s.Timeout.D(),
		})
	}
	return out
}

// usesMCP says whether a resolved agent has MCP tools to list.
func usesMCP(r *config.Resolved) bool {
	for _, e := range r.Agent.Tools {
		if _, _, ok := config.ParseMCPRef(e); ok {
			return true
		}
	}
	for _, t := range r.Tools {
		if t.MCP != nil {
			return true
		}
	}
	return false
}

// listMCP answers a server's tools as the config expands them.
func (a *Activities) listMCP(ctx context.Context) func(string) ([]config.MCPListed, error) {
	return func(server string) ([]config.MCPListed, error) {
		tools, err := a.mcp.List(ctx, server)
		if err != nil {
			return nil, err
		}
		out := make([]config.MCPListed, 0, len(tools))
		for _, t := range tools {
			out = append(out, config.MCPListed{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
				ReadOnly: t.ReadOnly, Idempotent: t.Idempotent})
		}
		return out, nil
	}
}

// mcpTool is the tool of an MCP server a request names, when the worker's
// config lets its agent call it: the server is one of the config's, and
// the agent names the tool (server/tool), all of the server's tools
// (server/*) or a tools: entry for it. Only names cross the history; the
// server's command or URL is the worker's.
func (a *Activities) mcpTool(r ToolRequest) (config.Tool, error) {
	m := r.Tool.MCP
	if _, ok := a.config.MCPServerNamed(m.Server); !ok {
		return config.Tool{}, classed(policies.Fatal, fmt.Sprintf("tool %s: MCP server %q is not in this worker's config (removed or renamed since the run started)", r.Tool.Name, m.Server), 0)
	}
	if !a.agentMayCallMCP(r.Agent, m.Server, m.Tool) {
		return config.Tool{}, classed(policies.Fatal, fmt.Sprintf("tool %s: %s/%s is not one of agent %s's tools in this worker's config", r.Tool.Name, m.Server, m.Tool, r.Agent), 0)
	}
	t := config.Tool{Name: r.Tool.Name, Effect: r.Tool.Effect, MCP: m}
	if ft, ok := a.config.MCPToolEntry(m.Server, m.Tool); ok {
		t.Errors = ft.Errors // the file's rules for its errors
	}
	return t, nil
}

// agentMayCallMCP: the agent's tools name the server's tool, all of the
// server's tools, or a tool of the file that is it (or reach one as a
// fallback).
func (a *Activities) agentMayCallMCP(agent, server, tool string) bool {
	if agent == "" {
		return false
	}
	resolved, err := a.config.Resolve(agent, a.getenv)
	if err != nil {
		return false
	}
	if slices.Contains(resolved.Agent.Tools, server+"/"+tool) || slices.Contains(resolved.Agent.Tools, server+"/"+config.MCPAll) {
		return true
	}
	for _, t := range resolved.Tools {
		if t.MCP != nil && t.MCP.Server == server && t.MCP.Tool == tool {
			return true
		}
	}
	return false
}

// runMCP sends a call to its MCP server, with the call's idempotency key
// in the request's metadata, and classes what goes wrong as an HTTP
// tool's failures are: the server unreachable or gone mid-call is
// transient (retried, and the server started again), arguments the server
// refuses are invalid_args, a result marked isError is persistent unless
// the tool's errors: rules say otherwise.
func (a *Activities) runMCP(ctx context.Context, key string, req toolCall) (json.RawMessage, error) {
	m := req.Tool.MCP
	if m.SchemaError != "" {
		return nil, classed(policies.Fatal, fmt.Sprintf("tool %s: %s, so the call was not sent", req.Tool.Name, m.SchemaError), 0)
	}
	if m.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.Timeout.D())
		defer cancel()
	}
	result, err := a.mcp.Call(ctx, m.Server, m.Tool, req.Args, key)
	if err == nil {
		return result, nil
	}
	msg := a.redactMCP(fmt.Sprintf("tool %s: %v", req.Tool.Name, err))
	var unavailable *mcptools.UnavailableError
	var protocol *mcptools.ProtocolError
	var toolErr *mcptools.ToolError
	class := policies.Persistent
	switch {
	case errors.As(err, &unavailable):
		class = policies.Transient
	case errors.As(err, &protocol):
		// JSON-RPC's "invalid params", except the SDK's answer for a tool
		// the server does not have (the list changed since the run
		// started): no repair of the arguments can help that.
		if protocol.Code == jsonRPCInvalidParams && !strings.Contains(protocol.Message, "unknown tool") {
			class = policies.InvalidArgs
		}
	case errors.As(err, &toolErr):
		msg = a.redactMCP(fmt.Sprintf("tool %s: %s", req.Tool.Name, toolErr.Text))
	case ctx.Err() != nil:
		class = policies.Transient
	}
	if c, ok := policies.MatchRule(0, msg, req.Tool.Errors); ok {
		class = c
	}
	return nil, classed(class, msg, 0)
}
