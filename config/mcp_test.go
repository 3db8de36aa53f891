package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mcpFile is a file with an stdio server fs, an HTTP server web, an
// override of fs/write_file and an HTTP tool a; agent lines start at 8.
func mcpFile(agent ...string) string {
	ls := []string{
		"model: {base_url: http://m/v1, name: m}",
		"mcp_servers:",
		"  - {name: fs, command: mcp-fs, args: [/data], env: [FS_TOKEN], timeout: 5s}",
		"  - {name: web, url: http://127.0.0.1:9/mcp, headers: {Authorization: \"Bearer ${WEB_TOKEN:-none}\"}}",
		"tools:",
		"  - {name: fs_write, mcp: {server: fs, tool: write_file}, approval: always, fallback: a}",
		"  - {name: a, http: {url: http://t/a}}",
		"agents:",
	}
	return y(append(ls, agent...)...)
}

func TestMCPConfigParses(t *testing.T) {
	f, err := parse(mcpFile("  - {name: x, tools: [fs/*, web/fetch, fs_write]}"))
	require.NoError(t, err)
	require.Len(t, f.MCPServers, 2)
	require.Equal(t, []string{"FS_TOKEN"}, f.MCPServers[0].Env)
	require.Equal(t, "Bearer ${WEB_TOKEN:-none}", f.MCPServers[1].Headers["Authorization"], "header values are kept as written")
	w, ok := f.Tool("fs_write")
	require.True(t, ok)
	require.Equal(t, "", w.Effect, "an MCP tool's effect comes from its annotations unless written")
	require.Equal(t, ApprovalAlways, w.Approval)
}

func TestValidateMCP(t *testing.T) {
	runProblems(t, []problemCase{
		{"a server with both command and url", y(
			"model: {base_url: http://m/v1, name: m}",
			"mcp_servers:",
			"  - {name: s, command: x, url: http://h/mcp}",
			"agents: [{name: x}]"), 3, "mcp_servers[0]", "not both"},
		{"a server with neither", y(
			"model: {base_url: http://m/v1, name: m}",
			"mcp_servers:",
			"  - {name: s}",
			"agents: [{name: x}]"), 3, "mcp_servers[0]", "missing command or url"},
		{"a bad server name", y(
			"model: {base_url: http://m/v1, name: m}",
			"mcp_servers:",
			"  - {name: a/b, command: x}",
			"agents: [{name: x}]"), 3, "mcp_servers[0].name", "invalid MCP server name"},
		{"a duplicate server", y(
			"model: {base_url: http://m/v1, name: m}",
			"mcp_servers:",
			"  - {name: s, command: x}",
			"  - {name: s, command: y}",
			"agents: [{name: x}]"), 4, "mcp_servers[1].name", "duplicate MCP server name"},
		{"an env value instead of a name", y(
			"model: {base_url: http://m/v1, name: m}",
			"mcp_servers:",
			"  - {name: s, command: x, env: [TOKEN=abc]}",
			"agents: [{name: x}]"), 3, "mcp_servers[0].env[0]", "write the name only"},
		{"a url that is not http", y(
			"model: {base_url: http://m/v1, name: m}",
			"mcp_servers:",
			"  - {name: s, url: ftp://h/mcp}",
			"agents: [{name: x}]"), 3, "mcp_servers[0].url", ""},
		{"headers on a stdio server", y(
			"model: {base_url: http://m/v1, name: m}",
			"mcp_servers:",
			"  - {name: s, command: x, headers: {A: b}}",
			"agents: [{name: x}]"), 3, "mcp_servers[0].headers", "not one started with command"},
		{"an agent naming an unknown server", mcpFile(
			"  - {name: x, tools: [nope/*]}"), 9, "agents[0].tools[0]", `unknown MCP server "nope" in "nope/*" (mcp_servers: fs, web)`},
		{"a tool of an unknown server", y(
			"model: {base_url: http://m/v1, name: m}",
			"tools:",
			"  - {name: t, mcp: {server: nope, tool: x}}",
			"agents: [{name: x, tools: [t]}]"), 3, "tools[0].mcp.server", `unknown MCP server "nope"`},
		{"an MCP tool with parameters", mcpFile(
			"  - {name: x, tools: [fs_write]}",
			"tools2: []")[0:0] + y(
			"model: {base_url: http://m/v1, name: m}",
			"mcp_servers: [{name: fs, command: x}]",
			"tools:",
			"  - {name: t, mcp: {server: fs, tool: x}, parameters: {type: object}}",
			"agents: [{name: x, tools: [t]}]"), 4, "tools[0].parameters", "leave them out"},
		{"an MCP tool and http", y(
			"model: {base_url: http://m/v1, name: m}",
			"mcp_servers: [{name: fs, command: x}]",
			"tools:",
			"  - {name: t, mcp: {server: fs, tool: x}, http: {url: http://t/a}}",
			"agents: [{name: x, tools: [t]}]"), 4, "tools[0]", "not several"},
		{"a tools: entry for every tool", y(
			"model: {base_url: http://m/v1, name: m}",
			"mcp_servers: [{name: fs, command: x}]",
			"tools:",
			"  - {name: t, mcp: {server: fs, tool: \"*\"}}",
			"agents: [{name: x, tools: [t]}]"), 4, "tools[0].mcp.tool", "names one tool"},
	})
}

func TestMCPToolName(t *testing.T) {
	require.Equal(t, "fs__read_file", MCPToolName("fs", "read_file"))
	require.Equal(t, "gh__repos_list-all", MCPToolName("gh", "repos.list-all"), "what a function name may not hold is _")
	long := MCPToolName("s", string(make([]byte, 100)))
	require.Len(t, long, 64)
}

// The agent's MCP entries become the tools they mean, as listed; the
// file's entry gives a tool its name and overrides; the effect comes from
// the annotations unless written; a schema that cannot be compiled is
// kept as the tool's SchemaError.
func TestExpandMCP(t *testing.T) {
	f, err := parse(mcpFile("  - {name: x, tools: [fs/*, web/fetch]}"))
	require.NoError(t, err)
	r, err := f.Resolve("x", env())
	require.NoError(t, err)
	obj := map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}
	err = r.ExpandMCP(f, lists(map[string][]MCPListed{
		"fs": {
			{Name: "read_file", Description: "Read a file.", InputSchema: obj, ReadOnly: true},
			{Name: "write_file", Description: "Write a file.", InputSchema: obj},
			{Name: "broken", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/missing"}}}},
		},
		"web": {{Name: "fetch", InputSchema: obj, Idempotent: true}, {Name: "other"}},
	}))
	require.NoError(t, err)
	require.Equal(t, []string{"fs__read_file", "fs_write", "fs__broken", "web__fetch"}, r.Agent.Tools)

	read, ok := r.AgentTool("fs__read_file")
	require.True(t, ok)
	require.Equal(t, &MCPTool{Server: "fs", Tool: "read_file", Timeout: Duration(5e9)}, read.MCP, "the server's timeout")
	require.Equal(t, EffectRead, read.Effect)
	require.Equal(t, "Read a file.", read.Description)
	require.Equal(t, obj, read.Parameters)

	write, ok := r.AgentTool("fs_write")
	require.True(t, ok)
	require.Equal(t, EffectWrite, write.Effect, "no annotation: it may change the world")
	require.Equal(t, ApprovalAlways, write.Approval, "the file's overrides")
	require.Equal(t, "a", write.Fallback)
	_, ok = r.Tool("a")
	require.True(t, ok, "the override's fallback is resolved too")

	fetch, _ := r.AgentTool("web__fetch")
	require.Equal(t, EffectIdempotent, fetch.Effect)
	require.Equal(t, DefaultMCPTimeout, fetch.MCP.Timeout)
	require.NotNil(t, fetch.Retry, "the default retry policy")

	broken, _ := r.AgentTool("fs__broken")
	require.Contains(t, broken.MCP.SchemaError, "fs/broken")
	require.Equal(t, map[string]any{"type": "object"}, broken.Parameters, "kept with an object schema, so the run starts")

	_, ok = r.AgentTool("web__other")
	require.False(t, ok, "only what the agent names")
	_, err = CompileSchema("x", read.Parameters)
	require.NoError(t, err)
}

func TestExpandMCPErrors(t *testing.T) {
	f, err := parse(mcpFile("  - {name: x, tools: [fs/nope]}"))
	require.NoError(t, err)
	r, err := f.Resolve("x", env())
	require.NoError(t, err)
	err = r.ExpandMCP(f, lists(map[string][]MCPListed{"fs": {{Name: "read_file"}}, "web": nil}))
	require.EqualError(t, err, `agent x: tools entry "fs/nope": MCP server "fs" has no tool "nope" (it lists: read_file)`)

	err = r.ExpandMCP(f, lists(map[string][]MCPListed{}))
	require.EqualError(t, err, `agent x: tools entry "fs/nope": mcp server "fs": cannot start`)

	f, err = parse(mcpFile("  - {name: x, tools: [a, fs/*]}"))
	require.NoError(t, err)
	r, err = f.Resolve("x", env())
	require.NoError(t, err)
	// A tool the server lists under a name the agent already has.
	f.Tools[1].Name = "fs__a"
	r.Tools[0].Name = "fs__a"
	err = r.ExpandMCP(f, lists(map[string][]MCPListed{"fs": {{Name: "a"}, {Name: "write_file"}}}))
	require.ErrorContains(t, err, "would be called fs__a, the name of another of its tools")
}

// lists answers the servers' tools from a map; a server not in it cannot
// be reached.
func lists(m map[string][]MCPListed) func(string) ([]MCPListed, error) {
	return func(server string) ([]MCPListed, error) {
		lts, ok := m[server]
		if !ok {
			return nil, fmt.Errorf("mcp server %q: cannot start", server)
		}
		return lts, nil
	}
}

// An MCP tool with a read-back brings its read-back tool into the run, as
// a fallback comes with the tool it stands in for.
func TestExpandMCPResolvesReadBacks(t *testing.T) {
	file := strings.Replace(mcpFile("  - {name: x, tools: [fs/*]}"), "fallback: a}", `verify: {tool: a, expect: "result.ok == true"}}`, 1)
	f, err := parse(file)
	require.NoError(t, err)
	r, err := f.Resolve("x", env())
	require.NoError(t, err)
	obj := map[string]any{"type": "object"}
	require.NoError(t, r.ExpandMCP(f, lists(map[string][]MCPListed{"fs": {{Name: "write_file", InputSchema: obj}}})))
	write, ok := r.AgentTool("fs_write")
	require.True(t, ok)
	require.True(t, write.Verify.ReadBack())
	_, ok = r.Tool("a")
	require.True(t, ok, "the read-back is resolved for the run")
	_, offered := r.AgentTool("a")
	require.False(t, offered, "and not offered to the model")
}
