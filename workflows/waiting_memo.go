package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// maxMemoCalls and maxMemoArgs bound the memo of calls waiting: a
// visibility record stays small, and the inbox reads the status of a run
// with more calls waiting than listed.
const (
	maxMemoCalls = 16
	maxMemoArgs  = 256
)

// waitingMemo lists pending for the memo: each call's shape, its
// arguments when small.
func waitingMemo(pending []signals.PendingApproval) signals.WaitingMemo {
	m := signals.WaitingMemo{Calls: []signals.WaitingCall{}}
	for i, p := range pending {
		if i == maxMemoCalls {
			m.More = len(pending) - i
			break
		}
		c := signals.WaitingCall{CallID: p.CallID, Tool: p.Tool, Shape: policies.ArgShape(p.Args), Since: p.WaitingSince, Deadline: p.Deadline, Answering: p.Answering}
		if len(p.Args) <= maxMemoArgs {
			c.Args = p.Args
		}
		m.Calls = append(m.Calls, c)
	}
	return m
}

// showWaiting keeps the run's memo MemoWaiting listing the calls waiting
// for approval, upserted when they change (version inbox-memo). A run
// whose last wait ended keeps its last list: the inbox lists only runs in
// phase awaiting_approval, and the next wait writes a new list, so the
// end of a wait costs no event.
func (r *runner) showWaiting(ctx workflow.Context) {
	pending := r.person().PendingApprovals(workflow.Now(ctx))
	if len(pending) == 0 {
		return
	}
	memo := waitingMemo(pending)
	b, err := json.Marshal(memo)
	if err != nil || string(b) == r.waitingShown {
		return
	}
	if versionOf(ctx, versionInboxMemo, 1) < 1 {
		return
	}
	if err := workflow.UpsertMemo(ctx, map[string]any{signals.MemoWaiting: memo}); err != nil {
		workflow.GetLogger(ctx).Warn("the memo of calls waiting was not upserted", "error", err)
		return
	}
	r.waitingShown = string(b)
}
