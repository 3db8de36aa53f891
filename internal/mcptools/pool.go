package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Pool holds a worker's sessions to its MCP servers: one per server, made on first use,
// shared by concurrent calls, and made again after it breaks. Safe for concurrent use.
type Pool struct {
	servers map[string]*server
}

// NewPool returns a pool for servers; it connects to none until asked. getenv reads the
// variables passed to stdio programs and expanded in HTTP headers; nil means os.LookupEnv.
func NewPool(servers []ServerConfig, getenv func(string) (string, bool)) *Pool {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "unstuck", Version: "v1"}, nil)
	p := &Pool{servers: make(map[string]*server, len(servers))}
	for _, cfg := range servers {
		p.servers[cfg.Name] = &server{cfg: cfg, getenv: getenv, client: client, connecting: make(chan struct{}, 1)}
	}
	return p
}

// List returns the server's tools, all pages, in the server's order.
func (p *Pool) List(ctx context.Context, serverName string) ([]Tool, error) {
	s, err := p.server(serverName)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	var tools []Tool
	cursor := ""
	for {
		var page *mcp.ListToolsResult
		sess, err := s.do(ctx, func(cs *mcp.ClientSession) (err error) {
			page, err = cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			return err
		})
		if err != nil {
			return nil, s.classify(ctx, sess, "", "listing tools", err)
		}
		for _, t := range page.Tools {
			tool, err := toTool(t)
			if err != nil {
				return nil, fmt.Errorf("mcp server %q: tool %q: %w", s.cfg.Name, t.Name, err)
			}
			tools = append(tools, tool)
		}
		if page.NextCursor == "" {
			return tools, nil
		}
		cursor = page.NextCursor
	}
}

// Call calls tool with args (a JSON object; empty means {}), sending idempotencyKey in the
// request's _meta, and returns the result as JSON (see package doc). Errors are
// *UnavailableError, *ProtocolError or *ToolError, or a plain error for an unknown server.
func (p *Pool) Call(ctx context.Context, serverName, tool string, args json.RawMessage, idempotencyKey string) (json.RawMessage, error) {
	s, err := p.server(serverName)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	var res *mcp.CallToolResult
	sess, err := s.do(ctx, func(cs *mcp.ClientSession) (err error) {
		// Made afresh per attempt: CallTool fills in the params it is given.
		params := &mcp.CallToolParams{Name: tool}
		if len(args) > 0 {
			params.Arguments = args
		}
		if idempotencyKey != "" {
			params.Meta = mcp.Meta{IdempotencyKeyMeta: idempotencyKey}
		}
		res, err = cs.CallTool(ctx, params)
		return err
	})
	if err != nil {
		return nil, s.classify(ctx, sess, tool, fmt.Sprintf("calling tool %q", tool), err)
	}
	if res.IsError {
		return nil, &ToolError{Server: s.cfg.Name, Tool: tool, Text: errorText(res)}
	}
	out, err := resultJSON(res)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: tool %q: %w", s.cfg.Name, tool, err)
	}
	return out, nil
}

// Close closes every session (stdio programs are asked to exit, then signalled) and makes
// later calls fail.
func (p *Pool) Close() error {
	var errs []error
	for _, s := range p.servers {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

func (p *Pool) server(name string) (*server, error) {
	if s, ok := p.servers[name]; ok {
		return s, nil
	}
	known := make([]string, 0, len(p.servers))
	for n := range p.servers {
		known = append(known, fmt.Sprintf("%q", n))
	}
	sort.Strings(known)
	if len(known) == 0 {
		known = append(known, "none")
	}
	return nil, fmt.Errorf("no mcp server named %q (the worker knows: %s)", name, strings.Join(known, ", "))
}

func toTool(t *mcp.Tool) (Tool, error) {
	tool := Tool{Name: t.Name, Description: t.Description}
	if a := t.Annotations; a != nil {
		tool.ReadOnly, tool.Idempotent = a.ReadOnlyHint, a.IdempotentHint
	}
	if t.InputSchema == nil {
		return tool, nil
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("reading input schema: %w", err)
	}
	if err := json.Unmarshal(b, &tool.InputSchema); err != nil {
		return Tool{}, fmt.Errorf("input schema is not a JSON object: %w", err)
	}
	return tool, nil
}
