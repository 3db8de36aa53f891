package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// approval: {timeout, then} with time skipped: the call waits its
// approval's own timeout (10 minutes, where human_timeout is an hour),
// then the deadline decides, in both run shapes.

const ownTimeout = 10 * time.Minute

// withDeadline gives b's approval a timeout of ownTimeout deciding then.
// Written here, not read from YAML, so then: escalate is tried without
// by: (one group: the last, whose deadline rejects).
func withDeadline(spec *config.Resolved, then string) *config.Resolved {
	for i := range spec.Tools {
		if spec.Tools[i].Name == "b" {
			spec.Tools[i].Approval.Deadline = config.Deadline{Timeout: config.Duration(ownTimeout), Then: then}
		}
	}
	return spec
}

// deadlineShapes are the two run shapes, each with b waiting for approval.
var deadlineShapes = map[string]func() *config.Resolved{
	"free-form": approvalSpec,
	"graph":     toolGraph,
}

// deadlineReplies are the model's replies in shape, from the from'th on:
// a call of b, then done (a graph asks none).
func deadlineReplies(shape string, from int) []activities.ModelReply {
	if shape == "graph" {
		return nil
	}
	return []activities.ModelReply{{ToolCalls: []activities.ToolCall{call("k1", "b", `{"seat": "12A"}`)}}, {Content: "done"}}[from:]
}

// The deadline approves: the call runs once, at the deadline, and its
// approval node says the deadline approved it, not a person.
func TestTheDeadlineApproves(t *testing.T) {
	for shape, spec := range deadlineShapes {
		t.Run(shape, func(t *testing.T) {
			h := newHarness(t, withDeadline(spec(), config.ThenApprove), deadlineReplies(shape, 0), echoTool)
			start := h.env.Now()
			res, err := h.run(AgentInput{Agent: "agent", Task: "book"})
			require.NoError(t, err)
			require.Equal(t, "completed", string(res.Status))
			require.Equal(t, []string{"b"}, toolNamesOf(h.toolReqs), "b ran once")
			approval := nodesByKind(h.trace(), signals.KindApproval)
			require.Len(t, approval, 1)
			require.Equal(t, signals.StatusCompleted, approval[0].Status)
			require.Equal(t, "approved by the deadline: no decision within 10m0s", approval[0].Note)
			require.JSONEq(t, `{"decision":"approve","by_deadline":true,"timeout":"10m0s"}`, string(approval[0].Output))
			require.Empty(t, approval[0].Args, "no person's decision")
			require.WithinDuration(t, start.Add(ownTimeout), approval[0].At, time.Second, "its own timeout, not human_timeout")
			require.Equal(t, signals.StatusCompleted, nodesOfCallsTo(h.trace(), "b")[0].Status)
		})
	}
}

// The deadline rejects, written or by default, and so does escalate's
// last group: the call never runs, and the run hears why.
func TestTheDeadlineRejects(t *testing.T) {
	for _, then := range []string{config.ThenReject, "", config.ThenEscalate} {
		for shape, spec := range deadlineShapes {
			t.Run(shape+" then "+then, func(t *testing.T) {
				h := newHarness(t, withDeadline(spec(), then), deadlineReplies(shape, 0), echoTool)
				start := h.env.Now()
				_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
				require.Empty(t, h.toolReqs, "b never ran")
				approval := nodesByKind(h.trace(), signals.KindApproval)
				require.Len(t, approval, 1)
				const why = "rejected by the deadline: no approval decision within 10m0s"
				require.Equal(t, why, approval[0].Note)
				require.JSONEq(t, `{"decision":"reject","by_deadline":true,"timeout":"10m0s"}`, string(approval[0].Output))
				require.WithinDuration(t, start.Add(ownTimeout), approval[0].At, time.Second)
				b := nodesOfCallsTo(h.trace(), "b")[0]
				require.Contains(t, b.Error, why)
				if shape == "free-form" {
					require.Contains(t, h.requests[1].Delta[0].Content, why, "the model hears why")
				}
			})
		}
	}
}

// A person who answers before the deadline decides, as without one.
func TestAPersonBeforeTheDeadlineDecides(t *testing.T) {
	h := newHarness(t, withDeadline(approvalSpec(), config.ThenApprove), deadlineReplies("free-form", 0), echoTool)
	var got updateResult
	h.approve(9*time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "reject", Audit: signals.Audit{By: "ops"}}, &got)
	_, err := h.run(AgentInput{Agent: "agent", Task: "book"})
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.Empty(t, h.toolReqs, "the person's rejection stands; the deadline never came")
	require.JSONEq(t, `{"decision":"reject"}`, string(nodesByKind(h.trace(), signals.KindApproval)[0].Output))
}

// Past half its timeout a call is flagged overdue in status and counted
// once; before the half it is not.
func TestAWaitPastHalfItsTimeoutIsFlagged(t *testing.T) {
	for shape, spec := range deadlineShapes {
		t.Run(shape, func(t *testing.T) {
			suite, reader := meteredSuite()
			h := newHarnessOn(suite, t, withDeadline(spec(), config.ThenReject), deadlineReplies(shape, 0), echoTool)
			var before, after signals.Status
			h.env.RegisterDelayedCallback(func() { before = h.status() }, ownTimeout/2-time.Second)
			h.env.RegisterDelayedCallback(func() { after = h.status() }, ownTimeout/2+time.Second)
			_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
			require.Len(t, before.PendingApprovals, 1)
			require.False(t, before.PendingApprovals[0].Overdue)
			require.Len(t, after.PendingApprovals, 1)
			p := after.PendingApprovals[0]
			require.True(t, p.Overdue)
			require.Equal(t, ownTimeout, p.Deadline.Sub(p.WaitingSince))
			require.Equal(t, int64(1), counted(t, reader, MetricApprovalsPastHalf, "tool", "b"))
			require.Equal(t, int64(1), counted(t, reader, MetricApprovals, "decision", "timeout"))
		})
	}
}

// A run recorded before the change, or whose tool has no deadline of its
// own, waits human_timeout and fails the call as it always did; only a
// tool with a deadline asks the gate.
func TestNoDeadlineOrBeforeTheGateWaitsHumanTimeout(t *testing.T) {
	for name, spec := range map[string]*config.Resolved{
		"no deadline":     approvalSpec(),
		"before the gate": withDeadline(approvalSpec(), config.ThenApprove),
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, spec, deadlineReplies("free-form", 0), echoTool)
			if name == "before the gate" {
				h.before(versionApprovalDeadline)
			}
			start := h.env.Now()
			_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
			require.Empty(t, h.toolReqs)
			approval := nodesByKind(h.trace(), signals.KindApproval)[0]
			require.Equal(t, "no approval decision within human_timeout (1h0m0s)", approval.Error)
			require.WithinDuration(t, start.Add(time.Hour), approval.At, time.Second)
		})
	}
}

// A wait carried across continue-as-new keeps its deadline from the
// wait's start, and its escalation count: the call that waited 8 of its
// 10 minutes is approved 2 minutes into the next generation, shown
// overdue meanwhile.
func TestTheDeadlineIsKeptAcrossContinueAsNew(t *testing.T) {
	for shape, spec := range deadlineShapes {
		t.Run(shape, func(t *testing.T) {
			h := newHarness(t, withDeadline(spec(), config.ThenApprove), deadlineReplies(shape, 0), echoTool)
			h.suggestWhileWaitingBy()
			_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
			next := continuedInput(t, h)
			waiting := next.Continued.Resume.Waiting
			require.Len(t, waiting.Since, 1)
			var held string
			for id := range waiting.Since {
				held = id
			}
			start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
			waiting.Since[held] = start.Add(-8 * time.Minute)
			waiting.Escalations = map[string]int{held: 1}

			h2 := newHarness(t, withDeadline(spec(), config.ThenApprove), deadlineReplies(shape, 1), echoTool)
			h2.env.SetStartTime(start)
			var seen signals.Status
			h2.env.RegisterDelayedCallback(func() { seen = h2.status() }, time.Minute)
			_, err := h2.run(next)
			require.NoError(t, err)
			require.Len(t, seen.PendingApprovals, 1)
			p := seen.PendingApprovals[0]
			require.Equal(t, start.Add(-8*time.Minute), p.WaitingSince)
			require.Equal(t, start.Add(2*time.Minute), p.Deadline)
			require.True(t, p.Overdue, "past half before this generation began")
			require.Equal(t, 1, p.Escalations, "the escalation count is carried")
			approval := nodesByKind(h2.trace(), signals.KindApproval)
			require.Len(t, approval, 1)
			require.Equal(t, "approved by the deadline: no decision within 10m0s", approval[0].Note)
			require.WithinDuration(t, start.Add(2*time.Minute), approval[0].At, time.Second, "the deadline stays the first generation's")
			require.Equal(t, []string{"b"}, toolNamesOf(h2.toolReqs))
		})
	}
}
