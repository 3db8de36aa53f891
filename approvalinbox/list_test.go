package approvalinbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/unstuck-dev/unstuck/signals"
)

func TestACallPastHalfItsWaitIsOverdue(t *testing.T) {
	since := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	c := Call{Since: since, Deadline: since.Add(4 * time.Hour)}
	require.False(t, c.Overdue(since.Add(time.Hour)))
	require.True(t, c.Overdue(since.Add(2*time.Hour+time.Second)))
	require.False(t, Call{Since: since}.Overdue(since.Add(100*time.Hour)), "no deadline known: never flagged")
}

func TestAGroupOfPeopleKeepsTheCallsItMayAnswer(t *testing.T) {
	r := waitingRun{workflowID: "pay-1", agent: "payer", memo: &signals.WaitingMemo{Calls: []signals.WaitingCall{
		{CallID: "n3", Tool: "pay", Answering: []string{"finance"}},
		{CallID: "n4", Tool: "pay", Answering: []string{"finance", "ops"}},
		{CallID: "n5", Tool: "book"},
	}}}
	ids := func(f Filter) (out []string) {
		for _, c := range r.memoCalls(f) {
			out = append(out, c.CallID)
		}
		return out
	}
	require.Equal(t, []string{"n3", "n4", "n5"}, ids(Filter{}))
	require.Equal(t, []string{"n3", "n4"}, ids(Filter{Group: "finance"}))
	require.Equal(t, []string{"n4"}, ids(Filter{Group: "ops"}), "escalated to ops")
	require.Empty(t, ids(Filter{Group: "legal"}))
	require.Equal(t, []string{"n4"}, ids(Filter{Group: "ops", Tool: "pay"}))
	require.Error(t, Filter{Group: "fin'ance"}.Check())
}
