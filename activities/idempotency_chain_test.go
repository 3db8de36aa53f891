package activities

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func chainKey(t *testing.T, workflowID, chain, callID string, tool config.Tool, args string) string {
	t.Helper()
	k, err := ChainIdempotencyKey(workflowID, chain, callID, tool, json.RawMessage(args))
	require.NoError(t, err)
	require.Len(t, k, 40, "20 bytes in hex")
	return k
}

func sha20(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:20])
}

// A call scheduled by an earlier version has no chain: its key is the one
// that version computed, byte for byte, so a retry after an upgrade sends
// the tool the same key.
func TestIdempotencyKeyWithoutAChainIsTheEarlierKey(t *testing.T) {
	write := config.Tool{Name: "book", Effect: config.EffectWrite}
	idem := config.Tool{Name: "book", Effect: config.EffectIdempotent}
	require.Equal(t, sha20("wf", "\x00", "n1"), chainKey(t, "wf", "", "n1", write, `{"a":1}`))
	require.Equal(t, sha20("wf", "\x00", "book", "\x00", `{"a":1,"b":2}`), chainKey(t, "wf", "", "n1", idem, `{"b":2, "a":1}`))
	require.Equal(t, key(t, "wf", "n1", write, `{}`), chainKey(t, "wf", "", "n1", write, `{}`))
	require.Equal(t, key(t, "wf", "n1", idem, `{}`), chainKey(t, "wf", "", "n1", idem, `{}`))
}

// Two runs that reuse a workflow id both start at node n1: the chain (the
// first run id of each) keeps their keys apart, for plain and idempotent
// tools; within one chain (retries, continue-as-new) the key is stable.
func TestIdempotencyKeyOfAChain(t *testing.T) {
	for _, effect := range []string{"", config.EffectRead, config.EffectWrite, config.EffectIdempotent} {
		t.Run("effect "+effect, func(t *testing.T) {
			tool := config.Tool{Name: "book", Effect: effect}
			k := chainKey(t, "order-42", "run-A", "n1", tool, `{"a":1}`)
			require.Equal(t, k, chainKey(t, "order-42", "run-A", "n1", tool, `{"a":1}`), "stable for the same call")
			require.NotEqual(t, k, chainKey(t, "order-42", "run-B", "n1", tool, `{"a":1}`), "a new run reusing the workflow id")
			require.NotEqual(t, k, chainKey(t, "order-42", "", "n1", tool, `{"a":1}`), "the key without a chain")
			require.NotEqual(t, k, chainKey(t, "order-43", "run-A", "n1", tool, `{"a":1}`), "another workflow")
			if effect == config.EffectIdempotent {
				require.Equal(t, k, chainKey(t, "order-42", "run-A", "n7", tool, `{ "a" : 1 }`), "another call with equal arguments")
				require.NotEqual(t, k, chainKey(t, "order-42", "run-A", "n1", tool, `{"a":2}`), "other arguments")
			} else {
				require.Equal(t, k, chainKey(t, "order-42", "run-A", "n1", tool, `{"a":2}`), "the call, not its arguments")
				require.NotEqual(t, k, chainKey(t, "order-42", "run-A", "n2", tool, `{"a":1}`), "another call")
			}
		})
	}
}

// A request from an earlier version (no "chain") still decodes, with an
// empty chain.
func TestToolRequestWithoutAChainDecodes(t *testing.T) {
	var r ToolRequest
	require.NoError(t, json.Unmarshal([]byte(`{"call_id":"n3","tool":{"name":"book","url":"http://old"},"args":{"a":1}}`), &r))
	require.Equal(t, "n3", r.CallID)
	require.Equal(t, "", r.Chain)
	b, err := json.Marshal(ToolRequest{CallID: "n3", Tool: ToolRef{Name: "book"}})
	require.NoError(t, err)
	require.NotContains(t, string(b), "chain", "omitted when empty")
}

// Through RunTool: the chain in the request reaches the tool's key; a
// request without one sends the earlier key.
func TestRunToolSendsTheChainKey(t *testing.T) {
	for _, effect := range []string{config.EffectWrite, config.EffectIdempotent} {
		t.Run("effect "+effect, func(t *testing.T) {
			ts := newToolServer(t, answer(200, `{}`))
			tool := httpTool("book", "POST", ts.URL)
			tool.Effect = effect
			args := json.RawMessage(`{"a":1}`)
			send := func(chain string) {
				acts := newTestActivities()
				acts.config.Tools = []config.Tool{tool}
				env := newActivityEnv(t, acts)
				_, err := env.ExecuteActivity(acts.RunTool, ToolRequest{CallID: "n2", Tool: ToolRef{Name: "book"}, Args: args, Chain: chain})
				require.NoError(t, err)
			}
			send("run-A")
			send("run-A") // a retry of the same call
			send("run-B") // a new run reusing the workflow id
			send("")      // scheduled by an earlier version
			reqs := ts.requests()
			require.Len(t, reqs, 4)
			keyOf := func(i int) string { return reqs[i].Header.Get("Idempotency-Key") }
			require.Equal(t, chainKey(t, testWorkflowID, "run-A", "n2", tool, string(args)), keyOf(0))
			require.Equal(t, keyOf(0), keyOf(1))
			require.Equal(t, chainKey(t, testWorkflowID, "run-B", "n2", tool, string(args)), keyOf(2))
			require.NotEqual(t, keyOf(0), keyOf(2))
			require.Equal(t, key(t, testWorkflowID, "n2", tool, string(args)), keyOf(3))
		})
	}
}
