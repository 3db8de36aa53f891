package testsuite

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A run of this release asks one version, unstuck-release, when it
// starts, and no change on its own: its history holds one version marker
// and one TemporalChangeVersion upsert, however many changes its path
// meets (parallel calls, a rule's repair, the effect ledger, limits,
// model heartbeats, ...). Before, each change asked added a marker and an
// upsert (a visibility write) to every run.
func TestRunOfThisReleaseAsksOneVersion(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		var args map[string]any
		_ = json.NewDecoder(r.Body).Decode(&args)
		writeJSON(w, 200, map[string]any{"got": args["n"]})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: release }
tools:
  - { name: count, effect: write, http: { url: "` + tools.URL + `/count" }, parameters: { type: object, properties: { n: { type: integer } }, required: [n] } }
agents:
  - { name: counter, instructions: Count., tools: [count] }
`
	script := scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(
			scriptedmodel.NewCall("count", map[string]any{"n": "1,250,000"}), // a rule reads the number
			scriptedmodel.NewCall("count", map[string]any{"n": 2}),
		),
		scriptedmodel.CallTurn("final_output", map[string]any{"ok": true}),
	)
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"release": script})
	run := s.start(workflows.AgentInput{Agent: "counter", Task: "count"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", res.Status)
	require.Len(t, tools.requests("/count"), 2)

	var markers []string
	var changeVersionUpserts int
	forEachEvent(t, run, func(ev *historypb.HistoryEvent) {
		if m := ev.GetMarkerRecordedEventAttributes(); m != nil && m.GetMarkerName() == "Version" {
			var id string
			require.NoError(t, json.Unmarshal(m.GetDetails()["change-id"].GetPayloads()[0].GetData(), &id))
			markers = append(markers, id)
		}
		if u := ev.GetUpsertWorkflowSearchAttributesEventAttributes(); u != nil {
			if _, ok := u.GetSearchAttributes().GetIndexedFields()["TemporalChangeVersion"]; ok {
				changeVersionUpserts++
			}
		}
	})
	require.Equal(t, []string{"unstuck-release"}, markers, "one version marker")
	require.Equal(t, 1, changeVersionUpserts, "one TemporalChangeVersion upsert")
	recordAndReplay(t, run, "release_version")
}
