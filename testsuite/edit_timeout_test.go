package testsuite

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A write that timed out may have taken effect: the tool got it, the run
// did not get the answer. Re-issued identically after an edit, it must not
// become a second effect at a tool that deduplicates by Idempotency-Key
// (as crash_test.go's booking server does): it must carry the key of the
// attempt that timed out, or not be sent.
func TestEditAfterATimedOutWriteDoesNotWriteTwice(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	effects := map[string]string{} // Idempotency-Key -> order
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path != "/order" {
			shopHandler(w, r, n)
			return
		}
		key := r.Header.Get("Idempotency-Key")
		mu.Lock()
		order, seen := effects[key]
		if !seen {
			order = fmt.Sprintf("O-%d", len(effects)+1)
			effects[key] = order // the effect happens, whether or not the caller waits
		}
		mu.Unlock()
		if n == 1 {
			time.Sleep(1200 * time.Millisecond) // past the tool's timeout
		}
		writeJSON(w, 200, map[string]any{"order_id": order})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: shop }
tools:
  - { name: lookup, http: { method: POST, url: "` + tools.URL + `/lookup" }, parameters: { type: object } }
  - { name: place_order, effect: write, http: { method: POST, url: "` + tools.URL + `/order", timeout: 500ms }, retry: { max_attempts: 1 }, parameters: { type: object } }
  - { name: confirm, approval: always, http: { method: POST, url: "` + tools.URL + `/confirm" }, parameters: { type: object } }
agents:
  - { name: shop, instructions: "Look up, order, confirm.", tools: [lookup, place_order, confirm] }
`
	script := scriptedmodel.Sequence(
		scriptedmodel.CallTurn("lookup", map[string]any{"item": "book", "_outputPath": "†state.x"}),
		scriptedmodel.CallTurn("place_order", map[string]any{"item": "book", "qty": 1}),
		scriptedmodel.CallTurn("confirm", map[string]any{"item": "book"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"price": "†state.x.price"}),
	)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"shop": script})
	run := s.start(workflows.AgentInput{Agent: "shop", Task: "buy the book"})
	id := run.GetID()
	s.awaitApproval(id, 0, "confirm")
	tr := s.trace(s.latest(id))
	lookup, write := callsOf(tr, "lookup")[0], callsOf(tr, "place_order")[0]
	require.Equal(t, signals.StatusFailed, write.Status)
	require.Contains(t, write.Error, "timed out")

	_, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"item":"book","price":12}`)})
	require.NoError(t, err)
	s.approveCall(id, s.awaitApproval(id, 1, "confirm").CallID)
	_, err = s.result(run)
	require.NoError(t, err)

	orders := tools.requests("/order")
	for _, r := range orders {
		t.Logf("order request: Idempotency-Key %s", r.IdempotencyKey)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, effects, 1, "the write that timed out and its re-issue after the edit are one effect")
}
