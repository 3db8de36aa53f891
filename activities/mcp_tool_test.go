package activities

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/mcpserver"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/policies"
)

// logged reads what the MCP server test double logged.
func logged(t *testing.T, log *testutil.Buffer) []mcpserver.LogLine {
	t.Helper()
	lines, err := mcpserver.ReadLog(log.String())
	require.NoError(t, err)
	return lines
}

// mcpFixture is a worker whose config has the MCP server test double,
// served over streamable HTTP on loopback, as server web, and an agent
// that may call web/* (agent all) or only web/echo (agent echoer).
func mcpFixture(t *testing.T, tools ...config.Tool) (*Activities, *testutil.Buffer, *httptest.Server) {
	t.Helper()
	log := &testutil.Buffer{}
	srv := httptest.NewServer(mcpserver.Handler(mcpserver.Options{Log: log}))
	t.Cleanup(srv.Close)
	cfg := &config.File{
		MCPServers: []config.MCPServer{{Name: "web", URL: srv.URL}},
		Tools:      tools,
		Agents: []config.Agent{
			{Name: "all", Tools: []string{"web/*"}},
			{Name: "echoer", Tools: []string{"web/echo"}},
		},
	}
	acts := New(cfg, nil)
	acts.getenv = func(string) (string, bool) { return "", false }
	t.Cleanup(func() { _ = acts.mcp.(interface{ Close() error }).Close() })
	return acts, log, srv
}

// callMCP runs RunTool for agent's call of tool on server web, as the
// workflow sends it.
func callMCP(t *testing.T, acts *Activities, agent, name, tool, args string, mutate ...func(*ToolRef)) (json.RawMessage, error) {
	t.Helper()
	ref := ToolRef{Name: name, MCP: &config.MCPTool{Server: "web", Tool: tool}, Effect: config.EffectWrite}
	for _, m := range mutate {
		m(&ref)
	}
	val, err := newActivityEnv(t, acts).ExecuteActivity(acts.RunTool, ToolRequest{CallID: "n7", Tool: ref, Args: json.RawMessage(args), Agent: agent})
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	require.NoError(t, val.Get(&out))
	return out, nil
}

func TestMCPCallSendsTheIdempotencyKey(t *testing.T) {
	acts, log, _ := mcpFixture(t)
	out, err := callMCP(t, acts, "all", "web__echo", "echo", `{"say": "hi"}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"say": "hi"}`, string(out))
	lines := logged(t, log)
	require.Len(t, lines, 1)
	want, err := ChainIdempotencyKey(testWorkflowID, "", "n7", config.Tool{Name: "web__echo", Effect: config.EffectWrite}, json.RawMessage(`{"say": "hi"}`))
	require.NoError(t, err)
	require.Equal(t, want, lines[0].IdempotencyKey, "the key an HTTP tool would get, in _meta")
}

// What goes wrong with an MCP call, and the class it gets.
func TestMCPCallFailures(t *testing.T) {
	big := `{"blob": "` + strings.Repeat("a", MaxResultBytes+1) + `"}`
	rule := config.Tool{Name: "failing", MCP: &config.MCPTool{Server: "web", Tool: "fail"},
		Errors: []config.ErrorRule{{Message: "always fails", Class: string(policies.Fatal)}}}
	for _, tc := range []struct {
		name, agent, tool, args string
		mutate                  func(*ToolRef)
		class                   string
		text                    string
		sent                    bool
	}{
		{"a result marked isError", "all", "fail", `{}`, nil, string(policies.Persistent), "the fail tool always fails", true},
		{"the tool's errors: rules win", "all", "fail", `{}`, func(r *ToolRef) { r.Name = "failing" }, string(policies.Fatal), "always fails", true},
		{"a tool the server does not have", "all", "nope", `{}`, nil, string(policies.Persistent), `unknown tool "nope"`, true},
		{"arguments the server's own check refuses", "all", "add", `{"a": "3", "b": 4}`, nil, string(policies.Persistent), "want \"integer\"", true},
		{"a schema that could not be compiled: never sent", "all", "echo", `{}`, func(r *ToolRef) { r.MCP.SchemaError = "the input schema of MCP tool web/echo: broken" }, string(policies.Fatal), "broken, so the call was not sent", false},
		{"a result over the limit", "all", "echo", big, nil, ResultTooLargeError, "over the 1048576-byte", true},
		{"a tool the agent may not call", "echoer", "add", `{"a": 1, "b": 2}`, nil, string(policies.Fatal), "web/add is not one of agent echoer's tools", false},
		{"a server not in the worker's config", "all", "echo", `{}`, func(r *ToolRef) { r.MCP.Server = "gone" }, string(policies.Fatal), `MCP server "gone" is not in this worker's config`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tools []config.Tool
			if tc.mutate != nil && strings.Contains(tc.name, "rules") {
				tools = append(tools, rule)
			}
			acts, log, _ := mcpFixture(t, tools...)
			name := "web__" + tc.tool
			_, err := callMCP(t, acts, tc.agent, name, tc.tool, tc.args, func(r *ToolRef) {
				if tc.mutate != nil {
					tc.mutate(r)
				}
			})
			ae := appError(t, err)
			require.Equal(t, tc.class, ae.Type(), "%v", err)
			require.Contains(t, err.Error(), tc.text)
			require.Equal(t, tc.sent, len(logged(t, log)) > 0, "sent to the server")
		})
	}
}

// A server that cannot be reached fails the call as transient: Temporal
// retries it, and the pool connects again.
func TestMCPServerDownIsTransient(t *testing.T) {
	down, _, srv := mcpFixture(t)
	srv.Close()
	// A token in the server's URL never reaches the history.
	cfg := *down.config
	cfg.MCPServers = []config.MCPServer{{Name: "web", URL: srv.URL + "/mcp?token=s3cret"}}
	acts := New(&cfg, nil)
	_, err := callMCP(t, acts, "all", "web__echo", "echo", `{}`)
	ae := appError(t, err)
	require.Equal(t, string(policies.Transient), ae.Type())
	require.False(t, ae.NonRetryable())
	require.Contains(t, err.Error(), `mcp server "web"`)
	require.Contains(t, err.Error(), srv.URL+"/mcp")
	require.NotContains(t, err.Error(), "s3cret")
}

// ResolveAgent lists the servers' tools into the run's tools; a server
// that cannot be listed fails the start as retryable, a tool it lacks for
// good.
func TestResolveAgentListsMCPTools(t *testing.T) {
	acts, _, srv := mcpFixture(t)
	acts.config.Agents = append(acts.config.Agents, config.Agent{Name: "lacking", Tools: []string{"web/nope"}})
	env := newActivityEnv(t, acts)
	val, err := env.ExecuteActivity(acts.ResolveAgent, "echoer")
	require.NoError(t, err)
	var r config.Resolved
	require.NoError(t, val.Get(&r))
	require.Equal(t, []string{"web__echo"}, r.Agent.Tools)
	echo, ok := r.AgentTool("web__echo")
	require.True(t, ok)
	require.Equal(t, "web", echo.MCP.Server)
	require.NotEmpty(t, echo.Description)

	_, err = env.ExecuteActivity(acts.ResolveAgent, "lacking")
	ae := appError(t, err)
	require.Equal(t, UnknownAgentError, ae.Type())
	require.True(t, ae.NonRetryable())
	require.Contains(t, err.Error(), `MCP server "web" has no tool "nope"`)

	srv.Close()
	fresh := New(acts.config, nil) // no session yet: must connect, and cannot
	_, err = newActivityEnv(t, fresh).ExecuteActivity(fresh.ResolveAgent, "echoer")
	ae = appError(t, err)
	require.Equal(t, MCPUnavailableError, ae.Type())
	require.False(t, ae.NonRetryable())
}
