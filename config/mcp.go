package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// DefaultMCPTimeout bounds one call of an MCP tool, and connecting to and
// listing its server, when the file says nothing.
const DefaultMCPTimeout = Duration(30 * time.Second)

// MCPAll is the tool part of an agent's server/* entry: every tool the
// server lists.
const MCPAll = "*"

// ParseMCPRef reads an agent's tools: entry that names MCP tools:
// server/tool or server/*. Any other entry is a tool of the file.
func ParseMCPRef(entry string) (server, tool string, ok bool) {
	i := strings.IndexByte(entry, '/')
	if i <= 0 || i == len(entry)-1 {
		return "", "", false
	}
	return entry[:i], entry[i+1:], true
}

// MCPServerNamed finds an MCP server of the file by name.
func (f *File) MCPServerNamed(name string) (MCPServer, bool) {
	for _, s := range f.MCPServers {
		if s.Name == name {
			return s, true
		}
	}
	return MCPServer{}, false
}

// MCPToolName is the name the model sees for a tool of an MCP server that
// no tools: entry names: server__tool, with what a function name may not
// hold (OpenAI-compatible servers take [a-zA-Z0-9_-], at most 64) written
// as _, cut to 64 characters.
func MCPToolName(server, tool string) string {
	var b strings.Builder
	for _, r := range server + "__" + tool {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// MCPListed is a tool as its MCP server lists it.
type MCPListed struct {
	Name        string
	Description string
	InputSchema map[string]any
	// ReadOnly and Idempotent are the tool's annotations (readOnlyHint,
	// idempotentHint), which give its effect when the file does not.
	ReadOnly   bool
	Idempotent bool
}

// ExpandMCP puts in the resolved agent the MCP tools it may call, as their
// servers list them now (list answers a server's tools; each server is
// asked once): each server/tool and
// server/* entry of its tools becomes the names of the tools it means,
// each tool gets the server's description and input schema, and the
// file's entry for a tool (an mcp: tool), when there is one, gives its
// name and overrides. The run keeps the answer, so a changed list applies
// to new runs only, and replay never asks a server.
func (r *Resolved) ExpandMCP(f *File, list func(server string) ([]MCPListed, error)) error {
	listed := &mcpLists{list: list, got: map[string][]MCPListed{}}
	byName := map[string]int{}
	for i, t := range r.Tools {
		byName[t.Name] = i
	}
	// The file's MCP tools the agent reached by name (or as a fallback).
	for i := range r.Tools {
		if m := r.Tools[i].MCP; m != nil {
			lt, err := listedTool(listed, m.Server, m.Tool)
			if err != nil {
				return fmt.Errorf("tool %s: %w", r.Tools[i].Name, err)
			}
			r.Tools[i] = fillMCPTool(f, r.Tools[i], lt)
		}
	}
	var names []string
	for _, entry := range r.Agent.Tools {
		server, tool, ok := ParseMCPRef(entry)
		if !ok {
			names = append(names, entry)
			continue
		}
		lts, err := listedTools(listed, server, tool)
		if err != nil {
			return fmt.Errorf("agent %s: tools entry %q: %w", r.Agent.Name, entry, err)
		}
		for _, lt := range lts {
			t := f.mcpToolEntry(server, lt.Name)
			t = fillMCPTool(f, t, lt)
			if j, dup := byName[t.Name]; dup {
				if m := r.Tools[j].MCP; m == nil || m.Server != server || m.Tool != lt.Name {
					return fmt.Errorf("agent %s: MCP tool %s/%s would be called %s, the name of another of its tools: give it a name with a tools: entry (mcp: {server: %s, tool: %s})",
						r.Agent.Name, server, lt.Name, t.Name, server, lt.Name)
				}
			} else {
				byName[t.Name] = len(r.Tools)
				r.Tools = append(r.Tools, t)
			}
			if !slices.Contains(names, t.Name) {
				names = append(names, t.Name)
			}
		}
	}
	r.Agent.Tools = names
	// The fallbacks and read-backs of the tools named in the file that
	// came in by a server/* or server/tool entry.
	for _, t := range r.Tools {
		for _, fb := range f.toolClosure(t.companions()) {
			if _, ok := byName[fb.Name]; ok {
				continue
			}
			if fb.MCP != nil {
				lt, err := listedTool(listed, fb.MCP.Server, fb.MCP.Tool)
				if err != nil {
					return fmt.Errorf("tool %s (a fallback): %w", fb.Name, err)
				}
				fb = fillMCPTool(f, fb, lt)
			}
			byName[fb.Name] = len(r.Tools)
			r.Tools = append(r.Tools, fb)
		}
	}
	sort.Slice(r.Tools, func(i, j int) bool { return r.Tools[i].Name < r.Tools[j].Name })
	return nil
}

// MCPToolEntry is the file's tools: entry for a tool of an MCP server,
// if it has one.
func (f *File) MCPToolEntry(server, tool string) (Tool, bool) {
	for _, t := range f.Tools {
		if t.MCP != nil && t.MCP.Server == server && t.MCP.Tool == tool {
			return t, true
		}
	}
	return Tool{}, false
}

// mcpToolEntry is the file's entry for a tool of an MCP server, or one
// with the defaults a tools: entry would get.
func (f *File) mcpToolEntry(server, tool string) Tool {
	if t, ok := f.MCPToolEntry(server, tool); ok {
		return t
	}
	t := Tool{Name: MCPToolName(server, tool), MCP: &MCPTool{Server: server, Tool: tool}}
	t.setDefaults(nil, func(path) bool { return true })
	t.Effect = "" // from the tool's annotations (fillMCPTool)
	return t
}

// fillMCPTool completes a tool of an MCP server from its listing: the
// description and input schema (one that cannot be compiled is kept as
// SchemaError, and calls of the tool are refused with it), the effect from
// its annotations when the file gives none, the timeout from its server.
func fillMCPTool(f *File, t Tool, lt MCPListed) Tool {
	m := *t.MCP
	t.MCP = &m
	if t.Description == "" {
		t.Description = lt.Description
	}
	t.Parameters = lt.InputSchema
	if t.Parameters == nil {
		t.Parameters = map[string]any{"type": "object"}
	}
	if _, err := CompileSchema("the input schema of MCP tool "+m.Server+"/"+m.Tool, t.Parameters); err != nil {
		m.SchemaError = err.Error()
		t.Parameters = map[string]any{"type": "object"}
	} else if t.Parameters["type"] != "object" {
		m.SchemaError = fmt.Sprintf("the input schema of MCP tool %s/%s is not of type object", m.Server, m.Tool)
		t.Parameters = map[string]any{"type": "object"}
	}
	if t.Effect == "" {
		switch {
		case lt.ReadOnly:
			t.Effect = EffectRead
		case lt.Idempotent:
			t.Effect = EffectIdempotent
		default:
			// MCP's own default: a tool that does not say it only reads
			// may change the world. Writes carry an idempotency key and
			// are never run twice after an edit.
			t.Effect = EffectWrite
		}
	}
	if m.Timeout <= 0 {
		m.Timeout = DefaultMCPTimeout
		if s, ok := f.MCPServerNamed(m.Server); ok && s.Timeout > 0 {
			m.Timeout = s.Timeout
		}
	}
	return t
}

// mcpLists asks each server for its tools once.
type mcpLists struct {
	list func(server string) ([]MCPListed, error)
	got  map[string][]MCPListed
}

func (l *mcpLists) of(server string) ([]MCPListed, error) {
	if lts, ok := l.got[server]; ok {
		return lts, nil
	}
	lts, err := l.list(server)
	if err != nil {
		return nil, err
	}
	l.got[server] = lts
	return lts, nil
}

func listedTools(listed *mcpLists, server, tool string) ([]MCPListed, error) {
	lts, err := listed.of(server)
	if err != nil {
		return nil, err
	}
	if tool == MCPAll {
		return lts, nil
	}
	lt, err := listedTool(listed, server, tool)
	return []MCPListed{lt}, err
}

func listedTool(listed *mcpLists, server, tool string) (MCPListed, error) {
	lts, err := listed.of(server)
	if err != nil {
		return MCPListed{}, err
	}
	names := make([]string, 0, len(lts))
	for _, lt := range lts {
		if lt.Name == tool {
			return lt, nil
		}
		names = append(names, lt.Name)
	}
	return MCPListed{}, fmt.Errorf("MCP server %q has no tool %q (it lists: %s)", server, tool, strings.Join(names, ", "))
}
