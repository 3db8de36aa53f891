package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

func TestCurrentDetails(t *testing.T) {
	spec := &config.Resolved{}
	spec.Agent.Name = "travel"
	run := &Run{Spec: spec}
	run.Phase, run.Step = signals.PhaseAwaitingApproval, 3
	for i := 1; i <= 12; i++ {
		run.Nodes = append(run.Nodes, Node{Node: signals.Node{
			ID: fmt.Sprintf("n%d", i), Kind: signals.KindCall, Status: signals.StatusAwaitingApproval,
			Tool: "book", Args: json.RawMessage(`{"flight":"` + strings.Repeat("x", 500) + `"}`),
		}})
	}
	run.Loops = []signals.Loop{{At: "n9", Kind: "cycle", Repeats: 3}}
	run.Escalations = []Escalation{{At: "n10", Action: "retry", Why: "cycle loop of period 2 repeated 3 times"}}
	run.Unverified = 2
	r := &runner{run: run}
	got := r.currentDetails("trip-42", r.person().PendingApprovals(r.seenAt), r.person().PendingReply(r.seenAt))
	for _, want := range []string{
		"**phase:** `awaiting_approval` · **step:** 3 · **agent:** `travel`",
		"**waiting for approval** (12):",
		"- `n1`: `book(flight=xxx",
		"… and 4 more",
		`temporal workflow update execute --workflow-id trip-42 --name approve --input '{"call_id":"n1","decision":"approve"}'`,
		"**last loop:** cycle at `n9`, repeated 3 times",
		"**last rung:** `retry` at `n10`",
		"**unverified calls:** 2 (the tool answered, its check failed)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("details lack %q:\n%s", want, got)
		}
	}
	if len(got) > 4096 {
		t.Errorf("details are %d bytes, want at most 4 KiB", len(got))
	}
}
