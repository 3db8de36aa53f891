package activities

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func key(t *testing.T, workflowID, callID string, tool config.Tool, args string) string {
	t.Helper()
	k, err := IdempotencyKey(workflowID, callID, tool, json.RawMessage(args))
	require.NoError(t, err)
	require.Len(t, k, 40, "20 bytes in hex")
	return k
}

// For read and write tools the key is the call's: stable across retries,
// different for another call or another run, whatever the arguments.
func TestIdempotencyKeyOfACall(t *testing.T) {
	for _, effect := range []string{"", config.EffectRead, config.EffectWrite} {
		t.Run("effect "+effect, func(t *testing.T) {
			tool := config.Tool{Name: "book", Effect: effect}
			k := key(t, "wf", "n1", tool, `{"a":1}`)
			require.Equal(t, k, key(t, "wf", "n1", tool, `{"a":1}`), "stable for the same call")
			require.Equal(t, k, key(t, "wf", "n1", tool, `{"a":2}`), "the call, not its arguments")
			require.NotEqual(t, k, key(t, "wf", "n2", tool, `{"a":1}`), "another call")
			require.NotEqual(t, k, key(t, "wf2", "n1", tool, `{"a":1}`), "another run")
		})
	}
}

// For idempotent tools the key is the workflow's, tool's and canonical
// arguments': the same across calls with equal arguments.
func TestIdempotencyKeyOfAnIdempotentTool(t *testing.T) {
	tool := config.Tool{Name: "book", Effect: config.EffectIdempotent}
	k := key(t, "wf", "n1", tool, `{"flight":"UA1","pax":{"adults":2,"kids":0}}`)

	require.Equal(t, k, key(t, "wf", "n2", tool, "{ \"pax\": {\"kids\":0, \"adults\":2},\n \"flight\": \"UA1\" }"),
		"another call with equal canonical arguments")
	require.NotEqual(t, k, key(t, "wf", "n1", tool, `{"flight":"UA2","pax":{"adults":2,"kids":0}}`), "other arguments")
	require.NotEqual(t, k, key(t, "wf2", "n1", tool, `{"flight":"UA1","pax":{"adults":2,"kids":0}}`), "another run")
	other := tool
	other.Name = "book_backup"
	require.NotEqual(t, k, key(t, "wf", "n1", other, `{"flight":"UA1","pax":{"adults":2,"kids":0}}`), "another tool")

	read := config.Tool{Name: "book", Effect: config.EffectRead}
	require.NotEqual(t, k, key(t, "wf", "n1", read, `{"flight":"UA1","pax":{"adults":2,"kids":0}}`), "same call of a read tool")

	require.Equal(t, key(t, "wf", "n1", tool, `{}`), key(t, "wf", "n2", tool, ``), "no arguments are {}")
}

// The canonical form needs JSON; the call's own key does not.
func TestIdempotencyKeyOfInvalidArguments(t *testing.T) {
	_, err := IdempotencyKey("wf", "n1", config.Tool{Name: "t", Effect: config.EffectIdempotent}, json.RawMessage(`{"a":`))
	require.Error(t, err)
	_, err = IdempotencyKey("wf", "n1", config.Tool{Name: "t", Effect: config.EffectWrite}, json.RawMessage(`{"a":`))
	require.NoError(t, err)
}

// Through RunTool, retries of one idempotent call and a second call with
// equal arguments send the tool one key.
func TestHTTPToolIdempotentKeyAcrossCalls(t *testing.T) {
	ts := newToolServer(t, answer(200, `{}`))
	tool := httpTool("book", "POST", ts.URL)
	tool.Effect = config.EffectIdempotent
	for _, c := range []struct{ id, args string }{
		{"n1", `{"a":1,"b":2}`},
		{"n2", `{"b":2,"a":1}`},
		{"n3", `{"a":1,"b":3}`},
	} {
		_, err := runTool(t, toolCase{CallID: c.id, Tool: tool, Args: json.RawMessage(c.args)})
		require.NoError(t, err)
	}
	reqs := ts.requests()
	require.Equal(t, reqs[0].Header.Get("Idempotency-Key"), reqs[1].Header.Get("Idempotency-Key"))
	require.NotEqual(t, reqs[0].Header.Get("Idempotency-Key"), reqs[2].Header.Get("Idempotency-Key"))
}
