package testsuite

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A person approves a write; the tool refuses the approved arguments as
// invalid. The history of this run is kept: the refusal reaches the model and the call is not re-issued (the history was recorded by the version of 69b3255).
func TestApprovedCallRefusedByTheTool(t *testing.T) {
	t.Parallel()
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
	pending := s.pendingApproval(run)
	require.NoError(t, s.update(run, signals.Approve, signals.ApproveRequest{CallID: pending.CallID, Decision: signals.DecisionApprove, Audit: signals.Audit{By: "alice"}}))
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	require.Len(t, tools.requests("/book"), 1, "arguments a person approved are never repaired behind their back")
	recordAndReplay(t, run, "approved_refusal_not_repaired")
}
