package workflows

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A parked run takes what a person sends it as any waiting run does: an
// edit ends the wait and the run goes on from it; a cancellation ends
// the run. Both shapes; a tool's outage and the model's.

// parkedAt is the node waiting out an outage at after, found in the
// run's trace by its note ("": none), kept in id.
func parkedAt(h *harness, after time.Duration, id *string) {
	h.env.RegisterDelayedCallback(func() {
		for _, n := range h.trace().Nodes {
			if strings.HasPrefix(n.Note, "waiting out an outage of") {
				*id = n.ID
			}
		}
	}, after)
}

// nodeOf is node id of the run's trace (nil: none).
func nodeOf(h *harness, id string) *signals.Node {
	for _, n := range h.trace().Nodes {
		if n.ID == id {
			return &n
		}
	}
	return nil
}

// failedCallAt is the first failed call of the run's trace at after,
// kept in id.
func failedCallAt(h *harness, after time.Duration, id *string) {
	h.env.RegisterDelayedCallback(func() {
		for _, n := range graphCalls(h.trace()) {
			if n.Status == signals.StatusFailed && *id == "" {
				*id = n.ID
			}
		}
	}, after)
}

// While a call waits out b's outage (b down for an hour), a person gives
// the earlier failed call of b its result: the edit is taken as in any
// other wait, the parked call's wait ends, b is not called again, and
// the run goes on from the edit and completes at once, in both shapes.
func TestAnEditIsTakenWhileACallWaitsOutAnOutage(t *testing.T) {
	for _, graph := range []bool{false, true} {
		var failed, parked string
		var got updateResult
		var seen signals.Status
		h, d, _, _, _ := outageRunWith(t, graph, time.Hour, func(h *harness) {
			h.env.RegisterDelayedCallback(func() { seen = h.status() }, time.Minute-time.Second)
			failedCallAt(h, time.Minute-time.Second, &failed)
			parkedAt(h, time.Minute-time.Second, &parked)
			h.env.RegisterDelayedCallback(func() {
				h.edit(0, signals.EditRequest{NodeID: failed, Output: json.RawMessage(`{"q": "given"}`), Audit: signals.Audit{By: "ops"}}, &got)
			}, time.Minute-time.Second/2)
		})
		require.Equal(t, signals.PhaseWaitingOutage, seen.Phase, "graph %v: a call waited when the edit came", graph)
		require.NotEmpty(t, failed, "graph %v", graph)
		require.NotEmpty(t, parked, "graph %v", graph)
		require.NoError(t, got.rejected, "graph %v", graph)
		require.NoError(t, got.err, "graph %v", graph)
		require.Less(t, h.env.Now().Sub(d.up.Add(-time.Hour)), 2*time.Minute, "graph %v: the edit was applied when it came, not after the outage", graph)
		// The edit goes on in the next generation, from the edited call;
		// b is still down, and no call of it is needed.
		next := continuedInput(t, h)
		h2, d2, _, res, err := outageRunIn(&testsuite.WorkflowTestSuite{}, t, graph, time.Hour, nil, next)
		require.NoError(t, err, "graph %v", graph)
		require.Equal(t, ResultCompleted, res.Status, "graph %v", graph)
		require.Less(t, h2.env.Now().Sub(d2.up.Add(-time.Hour)), time.Minute, "graph %v: it completed at once", graph)
		require.Zero(t, d2.downHits, "graph %v: b was not called again", graph)
		n := nodeOf(h2, failed)
		require.NotNil(t, n, "graph %v", graph)
		require.JSONEq(t, `{"q": "given"}`, string(n.Output), "graph %v: the call's result is the person's", graph)
		require.Nil(t, h2.status().Outage, "graph %v: nothing waits now", graph)
	}
}

// A call waiting out an outage has not run: an edit of it is refused, as
// of any call under way, saying what it waits out and what to edit.
func TestAnEditOfAParkedCallIsRefused(t *testing.T) {
	var parked string
	var got updateResult
	_, _, _, _, _ = outageRunWith(t, false, time.Hour, func(h *harness) {
		parkedAt(h, time.Minute-time.Second, &parked)
		h.env.RegisterDelayedCallback(func() {
			h.edit(0, signals.EditRequest{NodeID: parked, Output: json.RawMessage(`{"q": "given"}`)}, &got)
		}, time.Minute-time.Second/2)
		h.env.RegisterDelayedCallback(h.env.CancelWorkflow, 2*time.Minute)
	})
	require.NotEmpty(t, parked)
	require.EqualError(t, got.rejected, "edit: "+parked+" waits out an outage of b and has not finished: edit an earlier node (the wait ends and the run goes on from it), or this one once it has finished")
}

// A cancellation ends a parked call's wait: the run ends cancelled at
// once, and the call says it was not run.
func TestACancelEndsAnOutageWait(t *testing.T) {
	for _, graph := range []bool{false, true} {
		var id string
		h, d, _, _, err := outageRunWith(t, graph, time.Hour, func(h *harness) {
			parkedAt(h, time.Minute-time.Second, &id)
			h.env.RegisterDelayedCallback(h.env.CancelWorkflow, time.Minute)
		})
		require.NotEmpty(t, id, "graph %v: a call waited", graph)
		require.Error(t, err, "graph %v", graph)
		require.Less(t, h.env.Now().Sub(d.up.Add(-time.Hour)), 2*time.Minute, "graph %v: it ended when cancelled, not after the outage", graph)
		n := nodeOf(h, id)
		require.NotNil(t, n, "graph %v", graph)
		require.Contains(t, n.Error, "cancelled while it waited out an outage of b", "graph %v", graph)
	}
}

// A cancellation ends a model outage's wait: the run ends cancelled at
// once, the request node settled.
func TestACancelEndsAModelOutageWait(t *testing.T) {
	for _, graph := range []bool{false, true} {
		var parked signals.Status
		h, d, _, _, err := modelOutageRun(t, graph, time.Hour, func(*config.Resolved) {}, func(h *harness) {
			h.env.RegisterDelayedCallback(func() { parked = h.status() }, time.Minute-time.Second)
			h.env.RegisterDelayedCallback(h.env.CancelWorkflow, time.Minute)
		})
		require.Equal(t, signals.PhaseWaitingOutage, parked.Phase, "graph %v", graph)
		require.Error(t, err, "graph %v", graph)
		require.Less(t, h.env.Now().Sub(d.up.Add(-time.Hour)), 2*time.Minute, "graph %v: it ended when cancelled", graph)
		for _, n := range h.trace().Nodes {
			require.NotEqual(t, signals.StatusRunning, n.Status, "graph %v: node %s settled", graph, n.ID)
		}
	}
}

// Signals flood in while a call waits out b's outage: the run continues
// as new with the call carried, pending, and the next generation routes
// it again under its own node, waits on from the outage's first start,
// and completes once b answers, in both shapes.
func TestAnOutageWaitContinuesAsNew(t *testing.T) {
	for _, graph := range []bool{false, true} {
		var parked string
		var seen signals.Status
		h, _, _, _, _ := outageRunWith(t, graph, time.Hour, func(h *harness) {
			h.env.RegisterDelayedCallback(func() { seen = h.status() }, time.Minute-time.Second)
			parkedAt(h, time.Minute-time.Second, &parked)
			h.suggestWhileWaiting()
		})
		require.Equal(t, signals.PhaseWaitingOutage, seen.Phase, "graph %v", graph)
		require.NotEmpty(t, parked, "graph %v", graph)
		next := continuedInput(t, h)
		run := next.Continued
		require.Equal(t, signals.StatusPending, statuses(run)[parked], "graph %v: the parked call is carried, not run", graph)
		require.NotNil(t, run.Resume, "graph %v", graph)
		require.NotNil(t, run.Resume.Waiting, "graph %v", graph)
		require.Contains(t, run.Resume.Waiting.Since, parked, "graph %v: carried with its wait's start", graph)
		require.False(t, run.Outages.IsZero(), "graph %v: the outage's start is carried", graph)

		var later signals.Status
		h2, d2, _, res, err := outageRunIn(&testsuite.WorkflowTestSuite{}, t, graph, 3*time.Minute, nil, next, func(h *harness) {
			h.env.RegisterDelayedCallback(func() { later = h.status() }, time.Minute)
		})
		require.NoError(t, err, "graph %v", graph)
		require.Equal(t, ResultCompleted, res.Status, "graph %v", graph)
		require.Equal(t, signals.PhaseWaitingOutage, later.Phase, "graph %v: the next generation waits on", graph)
		require.True(t, later.Outage.Since.Equal(seen.Outage.Since), "graph %v: from the outage's first start", graph)
		n := nodeOf(h2, parked)
		require.NotNil(t, n, "graph %v", graph)
		require.Equal(t, signals.StatusCompleted, n.Status, "graph %v: the carried call ran under its own node", graph)
		// This generation's worker double starts with its breaker closed:
		// five failed attempts open it, then one trial a cooldown.
		require.LessOrEqual(t, d2.downHits, config.DefaultFailures+6, "graph %v", graph)
	}
}

// A run recorded before outage-continue waits on through a flood of
// signals, as it did: its call is not carried, but completes once b is
// back, in this generation (which then continues as new at the step's
// end, as Temporal still suggests).
func TestAnOutageWaitBeforeTheChangeIsNotCarried(t *testing.T) {
	for _, graph := range []bool{false, true} {
		var parked string
		h, d, _, _, _ := outageRunWith(t, graph, 3*time.Minute, func(h *harness) {
			h.before(versionOutageContinue)
			parkedAt(h, time.Minute-time.Second, &parked)
			h.suggestWhileWaiting()
		})
		require.NotEmpty(t, parked, "graph %v", graph)
		require.False(t, h.env.Now().Before(d.up), "graph %v: it waited until b was back", graph)
		n := nodeOf(h, parked)
		require.NotNil(t, n, "graph %v", graph)
		require.Equal(t, signals.StatusCompleted, n.Status, "graph %v: the call ran in this generation", graph)
	}
}

// While one call of a step waits out b's outage, a person approves
// another: it runs at once, the run still shows waiting_outage while b
// waits, and the step ends once b is back (free-form: a graph node makes
// one call).
func TestAnApprovalIsTakenWhileACallWaitsOutAnOutage(t *testing.T) {
	var got updateResult
	var parkedAfterA, shownRunning int
	h, d, _, res, err := outageRunOn(&testsuite.WorkflowTestSuite{}, t, false, 3*time.Minute, func(spec *config.Resolved) {
		for i := range spec.Tools {
			if spec.Tools[i].Name == "a" {
				spec.Tools[i].Approval = config.ApprovalAlways
			}
		}
	}, func(h *harness) {
		// b alone first (it fails, and opens the worker's breaker), then
		// b again beside a.
		asked := 0
		h.model = func(activities.ModelRequest) activities.ModelReply {
			asked++
			switch asked {
			case 1:
				return activities.ModelReply{ToolCalls: []activities.ToolCall{call("k1", "b", `{"q":1}`)}}
			case 2:
				return activities.ModelReply{ToolCalls: []activities.ToolCall{call("k2", "b", `{"q":1}`), call("k3", "a", `{"q":2}`)}}
			}
			return activities.ModelReply{Content: `"done"`}
		}
		h.env.RegisterDelayedCallback(func() {
			for _, n := range graphCalls(h.trace()) {
				if n.Tool == "a" && n.Status == signals.StatusAwaitingApproval {
					h.approve(0, signals.ApproveRequest{CallID: n.ID, Decision: "approve", Audit: signals.Audit{By: "ops"}}, &got)
				}
			}
		}, time.Minute)
		// Every 5 s after the approval: when b waits and a has run, the
		// run shows waiting_outage.
		for at := 65 * time.Second; at < 3*time.Minute; at += 5 * time.Second {
			h.env.RegisterDelayedCallback(func() {
				aDone, bParked := false, false
				for _, n := range graphCalls(h.trace()) {
					aDone = aDone || (n.Tool == "a" && n.Status == signals.StatusCompleted)
					bParked = bParked || strings.HasPrefix(n.Note, "waiting out an outage of b")
				}
				if aDone && bParked {
					parkedAfterA++
					if h.status().Phase != signals.PhaseWaitingOutage {
						shownRunning++
					}
				}
			}, at)
		}
	})
	require.NoError(t, got.rejected)
	require.NoError(t, got.err)
	require.NotZero(t, parkedAfterA, "a ran once approved, while b waited")
	require.Zero(t, shownRunning, "while b waits the run shows waiting_outage, after a's approval too")
	require.NoError(t, err)
	require.Equal(t, ResultCompleted, res.Status)
	require.False(t, h.env.Now().Before(d.up), "the step ended once b was back")
}
