package testsuite

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A person approves a write; the tool refuses the approved arguments as
// invalid. The history of this run is kept: the refusal reaches the model and the call is not re-issued (the history was recorded by the version of 69b3255).
func TestApprovedCallRefusedByTheTool(t *testing.T) {
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		var a map[string]any
		_ = json.NewDecoder(r.Body).Decode(&a)
		if d, _ := a["date"].(string); strings.Contains(d, " ") {
			writeJSON(w, 422, map[string]string{"error": "invalid date format for 'date'"})
			return
		}
		writeJSON(w, 200, map[string]any{"booked": a})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: approvedrefusal }
tools:
  - { name: book, http: { url: "` + tools.URL + `/book" }, effect: write, approval: always }
agents:
  - { name: booker, instructions: Book., tools: [book] }
`
	script := func(req openaiRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) == 0 {
			return scriptedmodel.CallTurn("book", map[string]any{"date": "Oct 26, 2024"})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"approvedrefusal": script})
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "book on Oct 26, 2024"})
	var st signals.Status
	require.Eventually(t, func() bool {
		st = signals.Status{}
		v, err := s.client.QueryWorkflow(context.Background(), run.GetID(), run.GetRunID(), signals.QueryStatus)
		return err == nil && v.Get(&st) == nil && len(st.PendingApprovals) == 1
	}, 20*time.Second, 100*time.Millisecond)
	h, err := s.client.UpdateWorkflow(context.Background(), client.UpdateWorkflowOptions{
		WorkflowID: run.GetID(), UpdateName: signals.Approve, WaitForStage: client.WorkflowUpdateStageCompleted,
		Args: []any{signals.ApproveRequest{CallID: st.PendingApprovals[0].CallID, Decision: signals.DecisionApprove, Audit: signals.Audit{By: "alice"}}},
	})
	require.NoError(t, err)
	require.NoError(t, h.Get(context.Background(), nil))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	require.Len(t, tools.requests("/book"), 1, "arguments a person approved are never repaired behind their back")
	recordAndReplay(t, run, "approved_refusal_not_repaired")
}
