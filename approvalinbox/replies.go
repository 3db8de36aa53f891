package approvalinbox

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
)

// Reply is a run waiting for a person's reply at a human node: a graph's
// human node, the ladder's human rung or a person agent's run (status
// pending_reply). A reply answers one run, so replies are listed one by
// one, not grouped.
type Reply struct {
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
	Agent      string `json:"agent"`
	signals.PendingReply
}

// Overdue: the wait passed half its timeout.
func (r Reply) Overdue(now time.Time) bool { return overdue(r.WaitingSince, r.Deadline, now) }

// keepsReply says whether f lists a wait for a reply answered by groups:
// a tool filter lists none (a reply answers no tool call).
func (f Filter) keepsReply(groups []string) bool {
	return f.Tool == "" && (f.Group == "" || slices.Contains(groups, f.Group))
}

// ReplyQuery selects the running runs of AgentWorkflow waiting for a
// reply (of agent f.Agent).
func ReplyQuery(f Filter) string { return phaseQuery(f, signals.PhaseAwaitingHuman) }

// ListReplies adds to in the runs of namespace in phase awaiting_human
// that f keeps, each wait read from the run's status, ReadsInFlight at a
// time, the longest waiting first; a run that does not answer is Unread.
// The inbox lists them below the calls (List).
func (in *Inbox) ListReplies(ctx context.Context, tc client.Client, namespace string, f Filter) error {
	if err := f.Check(); err != nil || f.Tool != "" {
		return err
	}
	runs, err := waitingRuns(ctx, tc, namespace, ReplyQuery(f))
	if err != nil {
		return err
	}
	got := make([]*Reply, len(runs))
	errs := readEach(ctx, runs, func(waitingRun) bool { return true }, func(i int, r waitingRun) error {
		st, err := runmsg.Status(ctx, tc, r.workflowID, "")
		if err != nil || st.PendingReply == nil || !f.keepsReply(st.PendingReply.Answering) {
			return err
		}
		got[i] = &Reply{WorkflowID: r.workflowID, RunID: r.runID, Agent: cmp.Or(st.Agent, r.agent), PendingReply: *st.PendingReply}
		return nil
	})
	for i, r := range runs {
		switch {
		case errs[i] != nil:
			in.Unread = append(in.Unread, Unread{WorkflowID: r.workflowID, Err: errs[i]})
		case got[i] != nil:
			in.Replies = append(in.Replies, *got[i])
		}
	}
	sort.SliceStable(in.Replies, func(a, b int) bool {
		x, y := in.Replies[a], in.Replies[b]
		if !x.WaitingSince.Equal(y.WaitingSince) {
			return x.WaitingSince.Before(y.WaitingSince)
		}
		return x.WorkflowID < y.WorkflowID
	})
	return nil
}
