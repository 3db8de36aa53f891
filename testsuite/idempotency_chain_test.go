package testsuite

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Two runs that reuse one workflow id (the second started after the first
// closed) both call the write tool from node n3: the tool must not get the
// same Idempotency-Key for both, or a tool that honours it answers the
// second booking with the first one's result.
func TestANewRunReusingTheWorkflowIDGetsItsOwnIdempotencyKeys(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		writeJSON(w, 200, map[string]any{"booking": n})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: reuse }
tools:
  - { name: book, effect: write, http: { method: POST, url: "` + tools.URL + `/book" } }
agents:
  - name: booker
    instructions: Book.
    tools: [book]
`
	script := scriptedmodel.Sequence(
		scriptedmodel.CallTurn("book", map[string]any{"flight": "UA1"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"reuse": script})
	id := fmt.Sprintf("reuse-%d", time.Now().UnixNano())
	var runIDs []string
	for range 2 {
		run, err := s.client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
			ID: id, TaskQueue: s.queue, WorkflowExecutionTimeout: 5 * time.Minute,
		}, workflows.WorkflowName, workflows.AgentInput{Agent: "booker", Task: "book UA1"})
		require.NoError(t, err)
		_, err = s.result(run)
		require.NoError(t, err)
		runIDs = append(runIDs, run.GetRunID())
		calls := nodesOf(s.trace(run), "call")
		require.Equal(t, "n3", calls[0].ID, "node ids start again in the new run")
	}
	require.NotEqual(t, runIDs[0], runIDs[1])
	book := tools.requests("/book")
	require.Len(t, book, 2)
	require.Equal(t, id, book[0].WorkflowID)
	require.Equal(t, id, book[1].WorkflowID)
	require.NotEmpty(t, book[0].IdempotencyKey)
	require.NotEqual(t, book[0].IdempotencyKey, book[1].IdempotencyKey, "each run has its own key for its n3")
}
