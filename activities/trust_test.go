package activities

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// A tool request names its tool; the address comes from the worker's
// config. A request scheduled by an earlier version carried the whole tool
// (URL included): it still decodes, and its URL is never used.
func TestToolRequestGoesWhereTheWorkersConfigSays(t *testing.T) {
	real := newToolServer(t, answer(http.StatusOK, `{"from":"config"}`))
	attacker := newToolServer(t, answer(http.StatusOK, `{"from":"attacker"}`))
	acts := newTestActivities()
	acts.config.Tools = []config.Tool{httpTool("search", "POST", real.URL)}
	env := newActivityEnv(t, acts)

	var old ToolRequest
	require.NoError(t, json.Unmarshal([]byte(`{"call_id":"n1","tool":{"name":"search","http":{"method":"POST","url":"`+attacker.URL+`"}},"args":{}}`), &old))
	require.Equal(t, "search", old.Tool.Name)
	val, err := env.ExecuteActivity(acts.RunTool, old)
	require.NoError(t, err)
	var out map[string]string
	require.NoError(t, val.Get(&out))
	require.Equal(t, "config", out["from"])
	require.Len(t, real.requests(), 1)
	require.Empty(t, attacker.requests(), "the address a request carries is never called")
}

// A tool removed from the worker's config since the run started fails its
// call for good, naming the tool.
func TestToolRemovedFromTheConfigFailsFatally(t *testing.T) {
	acts := newTestActivities()
	env := newActivityEnv(t, acts)
	_, err := env.ExecuteActivity(acts.RunTool, ToolRequest{CallID: "n1", Tool: ToolRef{Name: "gone"}, Args: json.RawMessage(`{}`)})
	ae := requireClass(t, err, string(policies.Fatal), false)
	require.Contains(t, ae.Message(), "tool gone is not in this worker's config")
}

// The model a request reaches is the named agent's, from the worker's
// config; an agent removed since the run started fails for good.
func TestModelRequestOfARemovedAgentFailsFatally(t *testing.T) {
	acts := newTestActivities()
	acts.config.Agents = []config.Agent{{Name: "travel"}}
	env := newActivityEnv(t, acts)
	_, err := env.ExecuteActivity(acts.CallModel, ModelRequest{Agent: "gone", Delta: []Message{{Role: "user", Content: "hi"}}, Tools: []ToolDef{}})
	ae := requireClass(t, err, ModelRejectedError, false)
	require.Contains(t, ae.Message(), `agent "gone" is no longer in this worker's config`)
	_, err = env.ExecuteActivity(acts.RepairArgs, RepairRequest{Agent: "gone", Tool: ToolDef{Name: "t"}, Args: json.RawMessage(`{}`)})
	requireClass(t, err, ModelRejectedError, false)
}

// What a run keeps of its agent holds no address and no secret's name.
func TestResolveAgentAnswersNamesOnly(t *testing.T) {
	acts := newTestActivities()
	acts.config.Model = config.Model{BaseURL: "http://model.internal/v1?key=s3cret", APIKeyEnv: "MY_KEY", Name: "gpt"}
	acts.config.Tools = []config.Tool{{Name: "book", HTTP: &config.HTTPTool{Method: "POST", URL: "http://tools.internal/book?token=s3cret", Timeout: config.Duration(5e9)}}}
	acts.config.Agents = []config.Agent{{Name: "travel", Tools: []string{"book"}, Model: &config.Model{BaseURL: "http://own.internal/v1", APIKeyEnv: "OWN_KEY"}}}
	env := newActivityEnv(t, acts)
	val, err := env.ExecuteActivity(acts.ResolveAgent, "travel")
	require.NoError(t, err)
	var spec config.Resolved
	require.NoError(t, val.Get(&spec))
	raw, _ := json.Marshal(spec)
	for _, secret := range []string{"internal", "s3cret", "MY_KEY", "OWN_KEY"} {
		require.NotContains(t, string(raw), secret)
	}
	book, ok := spec.Tool("book")
	require.True(t, ok)
	require.Equal(t, config.Duration(5e9), book.HTTP.Timeout, "what the workflow decides on stays")
	require.Equal(t, "gpt", spec.Model.Name)
}

// A call names its agent: a tool of the config that is not the agent's
// (nor a fallback of its tools) is refused, even if it exists.
func TestToolOutsideTheAgentsToolsIsRefused(t *testing.T) {
	acts := newTestActivities()
	acts.config.Tools = []config.Tool{builtinTool("echo", "echo"), builtinTool("admin", "echo")}
	acts.config.Agents = []config.Agent{{Name: "travel", Tools: []string{"echo"}}}
	env := newActivityEnv(t, acts)
	_, err := env.ExecuteActivity(acts.RunTool, ToolRequest{CallID: "n1", Tool: ToolRef{Name: "admin"}, Args: json.RawMessage(`{}`), Agent: "travel"})
	ae := requireClass(t, err, string(policies.Fatal), false)
	require.Contains(t, ae.Message(), "tool admin is not one of agent travel's tools")
	_, err = env.ExecuteActivity(acts.RunTool, ToolRequest{CallID: "n2", Tool: ToolRef{Name: "echo"}, Args: json.RawMessage(`{}`), Agent: "travel"})
	require.NoError(t, err)
}
