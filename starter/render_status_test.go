package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

func TestRenderStatus(t *testing.T) {
	// now is when a test reads the status: an outage since 09:30 has
	// been waited out 4m12s.
	now := time.Date(2026, 12, 7, 9, 34, 12, 0, time.UTC)
	tests := []struct {
		name   string
		status signals.Status
		want   []string // lines, compared with runs of spaces collapsed
	}{
		{
			name:   "fresh run",
			status: signals.Status{Agent: "travel", Phase: signals.PhaseRunning, Step: 1},
			want: []string{
				"agent: travel",
				"phase: running",
				"step: 1",
				"generation: 0",
				"last error: -",
				"handoff path: none",
				"fallbacks: 0",
				"pending approvals: none",
				"breakers: none",
				"loops: none",
				"spend: none",
			},
		},
		{
			name: "waiting for a signed reply, escalated and overdue",
			status: signals.Status{Agent: "ops", Phase: signals.PhaseAwaitingHuman, Step: 2,
				PendingReply: &signals.PendingReply{NodeID: "n7", GraphNode: "H", Why: "graph node H (approval asked: state.risk > 3 is true)",
					WaitingSince: now.Add(-40 * time.Minute), Deadline: now.Add(20 * time.Minute), Escalations: 1, Answering: []string{"ops", "finance"}}},
			want: []string{
				"agent: ops",
				"phase: awaiting_human",
				"step: 2",
				"generation: 0",
				"last error: -",
				"handoff path: none",
				"fallbacks: 0",
				"pending approvals: none",
				"waiting for a reply: n7 (graph node H), from ops, finance (a signed reply: unstuck reply --as NAME --key FILE) waiting 40m0s, due in 20m0s, escalated 1, OVERDUE (past half its timeout)",
				"why: graph node H (approval asked: state.risk > 3 is true)",
				"breakers: none",
				"loops: none",
				"spend: none",
			},
		},
		{
			name: "waiting out an outage",
			status: signals.Status{Agent: "travel", Phase: signals.PhaseWaitingOutage, Step: 4,
				LastError: "circuit open: book_flight failed 5 times in a row",
				Breakers:  map[string]string{"book_flight": "open"},
				Outage: &signals.OutageStatus{Of: "book_flight", Since: time.Date(2026, 12, 7, 9, 30, 0, 0, time.UTC),
					NextProbe: time.Date(2026, 12, 7, 9, 34, 30, 0, time.UTC)}},
			want: []string{
				"agent: travel",
				"phase: waiting_outage",
				"outage: book_flight down since 2026-12-07T09:30:00Z (4m12s), next probe 2026-12-07T09:34:30Z (in 18s)",
				"step: 4",
				"generation: 0",
				"last error: circuit open: book_flight failed 5 times in a row",
				"handoff path: none",
				"fallbacks: 0",
				"pending approvals: none",
				"breakers:",
				"book_flight open",
				"loops: none",
				"spend: none",
			},
		},
		{
			name: "everything set",
			status: signals.Status{
				Agent: "refunds", Phase: signals.PhaseAwaitingApproval, Step: 12, Generation: 3,
				LastError: "HTTP 503\nfrom book_flight",
				PendingApprovals: []signals.PendingApproval{
					{CallID: "c7", Tool: "refund", Args: json.RawMessage(`{"amount": 120}`)},
					{CallID: "c9", Tool: "refund", Args: json.RawMessage(`{"amount": 7}`), WaitingSince: now.Add(-90 * time.Minute), Deadline: now.Add(30 * time.Minute), Escalations: 1},
					{CallID: "c10", Tool: "refund", Args: json.RawMessage(`{"amount": 8}`), WaitingSince: now.Add(-time.Minute), Deadline: now.Add(time.Hour)},
				},
				Breakers:    map[string]string{"search": "closed", "book_flight": "open"},
				Loops:       []signals.Loop{{At: "n40", Kind: "tool", Cycle: []string{"search", "book_flight"}, Repeats: 3}},
				HandoffPath: []string{"orders", "refunds"},
				Fallbacks:   2,
				Unverified:  1,
				Spend: &signals.SpendStatus{ModelRequests: 12, InputTokens: 9000, OutputTokens: 400, ToolCalls: 11, Cost: 0.0415, Currency: "USD",
					Estimated: 2, WallTime: "3m0s", Limits: map[string]any{"cost": 0.05, "tool_calls": 20, "wall_time": "1h0m0s"}},
			},
			want: []string{
				"agent: refunds",
				"phase: awaiting_approval",
				"step: 12",
				"generation: 3",
				"last error: HTTP 503 from book_flight",
				"handoff path: orders -> refunds",
				"fallbacks: 2",
				"unverified: 1",
				"pending approvals:",
				`c7 refund {"amount":120}`,
				`c9 refund {"amount":7} waiting 1h30m0s, due in 30m0s, escalated 1, OVERDUE (past half its timeout)`,
				`c10 refund {"amount":8} waiting 1m0s, due in 1h0m0s`,
				"breakers:",
				"book_flight open",
				"search closed",
				"loops:",
				"at n40 tool search -> book_flight x3",
				"spend:",
				"model_requests 12",
				"input_tokens 9000",
				"output_tokens 400",
				"tool_calls 11 of 20",
				"cost 0.0415 USD of 0.05",
				"wall_time 3m0s of 1h0m0s",
				"(tokens of 2 requests counted by the worker: the provider reported none)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, renderStatus(&buf, tt.status, now))
			var got []string
			for _, l := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
				got = append(got, strings.Join(strings.Fields(l), " "))
			}
			require.Equal(t, tt.want, got)
		})
	}
}
