package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// approval: {by: [finance, ops], timeout, then: escalate}: finance is
// asked first; carol of ops may not answer until finance's deadline
// passes, then ops is asked with a whole timeout of its own, and her
// signed approval runs the call once. When ops's deadline passes too, the
// call is rejected.
func TestAnApprovalEscalatesToTheNextGroupInBothShapes(t *testing.T) {
	escalating := func(spec *config.Resolved) {
		for i := range spec.Tools {
			if spec.Tools[i].Name == "b" {
				spec.Tools[i].Approval.Deadline = config.Deadline{Timeout: config.Duration(time.Hour), Then: config.ThenEscalate}
			}
		}
	}
	for shape, run := range map[string]func(*testing.T, func(*harness)) (*harness, error){
		"free-form": func(t *testing.T, decide func(*harness)) (*harness, error) {
			return peopleFreeFormWith(t, escalating, decide)
		},
		"graph": func(t *testing.T, decide func(*harness)) (*harness, error) {
			return peopleGraphWith(t, escalating, decide)
		},
	} {
		callID := map[string]string{"free-form": "n3", "graph": "n2"}[shape]
		t.Run(shape+": ops answers once asked", func(t *testing.T) {
			var early, asked updateResult
			var escalated signals.Status
			h, err := run(t, func(h *harness) {
				h.approve(30*time.Minute, signedApproval(t, carol, "carol", callID, signals.DecisionApprove), &early)
				h.env.RegisterDelayedCallback(func() { escalated = h.status() }, 61*time.Minute)
				h.approve(90*time.Minute, signedApproval(t, carol, "carol", callID, signals.DecisionApprove), &asked)
			})
			require.NoError(t, err)
			require.ErrorContains(t, early.rejected, "carol is not in finance, who answer for b", "ops answers only once asked")
			require.Len(t, escalated.PendingApprovals, 1)
			require.Equal(t, 1, escalated.PendingApprovals[0].Escalations, "finance's deadline passed: ops is asked")
			require.Equal(t, []string{"finance", "ops"}, escalated.PendingApprovals[0].Answering, "finance may still answer")
			require.NoError(t, asked.rejected)
			require.Equal(t, 1, strings.Count(strings.Join(toolsCalled(h), ","), "b"), "b ran once, approved by ops")
			require.Equal(t, []string{"carol"}, approvalsBy(h))
		})
		t.Run(shape+": the last group's deadline rejects", func(t *testing.T) {
			h, _ := run(t, func(*harness) {})
			require.NotContains(t, toolsCalled(h), "b", "no one answered: b never ran")
			var byDeadline bool
			for _, n := range nodesByKind(h.trace(), signals.KindApproval) {
				byDeadline = byDeadline || strings.Contains(n.Note, "rejected by the deadline")
			}
			require.True(t, byDeadline, "the approval node says the deadline rejected it")
		})
	}
}
