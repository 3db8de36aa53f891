package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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

func TestWaitingMemoListsShapesSmallArgsAndCountsTheRest(t *testing.T) {
	since := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	large := json.RawMessage(fmt.Sprintf(`{"note": %q}`, strings.Repeat("x", maxMemoArgs)))
	pending := []signals.PendingApproval{
		{CallID: "n3", Tool: "pay", Args: json.RawMessage(`{"amount": 5, "to": "acme"}`), WaitingSince: since},
		{CallID: "n4", Tool: "pay", Args: large, WaitingSince: since},
	}
	m := waitingMemo(pending)
	require.Equal(t, signals.WaitingMemo{Calls: []signals.WaitingCall{
		{CallID: "n3", Tool: "pay", Shape: "{amount: number, to: string}", Args: pending[0].Args, Since: since},
		{CallID: "n4", Tool: "pay", Shape: "{note: string}", Since: since},
	}}, m, "large arguments are left out, their shape kept")

	for i := range maxMemoCalls + 3 {
		pending = append(pending, signals.PendingApproval{CallID: fmt.Sprint("n", 10+i), Tool: "pay", Args: json.RawMessage(`{}`)})
	}
	m = waitingMemo(pending)
	require.Len(t, m.Calls, maxMemoCalls)
	require.Equal(t, len(pending)-maxMemoCalls, m.More)
}
