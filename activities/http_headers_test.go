package activities

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// runToolWithEnv is runTool with a worker environment of kv pairs.
func runToolWithEnv(t *testing.T, c toolCase, kv ...string) (json.RawMessage, error) {
	t.Helper()
	vars := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		vars[kv[i]] = kv[i+1]
	}
	acts := newTestActivities()
	acts.getenv = func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	acts.config.Tools = []config.Tool{c.Tool}
	env := newActivityEnv(t, acts)
	val, err := env.ExecuteActivity(acts.RunTool, ToolRequest{CallID: c.CallID, Tool: ToolRef{Name: c.Tool.Name}, Args: c.Args})
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	require.NoError(t, val.Get(&out))
	return out, nil
}

// A configured header reaches the tool with its variables expanded from
// the worker's environment at call time; the engine's headers stand.
func TestHTTPToolSendsConfiguredHeaders(t *testing.T) {
	ts := newToolServer(t, answer(200, `{}`))
	tool := httpTool("book", "POST", ts.URL)
	tool.HTTP.Headers = map[string]string{
		"Authorization": "Bearer ${BOOKING_TOKEN}",
		"X-Tenant":      "${TENANT:-acme}",
		"X-Literal":     "$${NOT_A_VAR}",
		"Accept":        "application/vnd.api+json",
	}
	_, err := runToolWithEnv(t, toolCase{CallID: "n1", Tool: tool, Args: json.RawMessage(`{}`)}, "BOOKING_TOKEN", "s3cret")
	require.NoError(t, err)
	r := ts.requests()[0]
	cases := []struct{ header, want string }{
		{"Authorization", "Bearer s3cret"},
		{"X-Tenant", "acme"},
		{"X-Literal", "${NOT_A_VAR}"},
		{"Accept", "application/vnd.api+json"},
		{"Content-Type", "application/json"},
		{"Unstuck-Workflow-Id", testWorkflowID},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, r.Header.Get(tc.header), tc.header)
	}
	require.Equal(t, "Bearer ${BOOKING_TOKEN}", tool.HTTP.Headers["Authorization"], "the config keeps the variable's name")
}

// A header whose variable the worker lacks fails the call for good,
// naming the variable; nothing is sent.
func TestHTTPToolHeaderVariableUnsetAtCallTime(t *testing.T) {
	ts := newToolServer(t, answer(200, `{}`))
	tool := httpTool("book", "POST", ts.URL)
	tool.HTTP.Headers = map[string]string{"Authorization": "Bearer ${BOOKING_TOKEN}"}
	_, err := runToolWithEnv(t, toolCase{CallID: "n1", Tool: tool, Args: json.RawMessage(`{}`)})
	ae := requireClass(t, err, "fatal", false)
	require.Equal(t, "tool book: header Authorization: environment variable BOOKING_TOKEN is not set in the worker", ae.Message())
	require.Empty(t, ts.requests())
}

// The engine's headers win over a config that names them anyway (the
// loader refuses such a config; a File built in Go is not checked).
func TestHTTPToolEngineHeadersWin(t *testing.T) {
	ts := newToolServer(t, answer(200, `{}`))
	tool := httpTool("t", "POST", ts.URL)
	tool.HTTP.Headers = map[string]string{"Idempotency-Key": "forged", "Content-Type": "text/plain", "Unstuck-Workflow-Id": "other"}
	_, err := runTool(t, toolCase{CallID: "n1", Tool: tool, Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	h := ts.requests()[0].Header
	require.NotEqual(t, "forged", h.Get("Idempotency-Key"))
	require.Equal(t, "application/json", h.Get("Content-Type"))
	require.Equal(t, testWorkflowID, h.Get("Unstuck-Workflow-Id"))
}
