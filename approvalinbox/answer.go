package approvalinbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"golang.org/x/sync/errgroup"

	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
)

// AnswersInFlight is how many approvals of a group are sent at once.
const AnswersInFlight = 32

// Decision is a person's answer to a group: approve or reject every call
// of group GroupID still waiting, or only those named in Only, or all but
// those in Except. A name is a call's Ref ("<workflow id>/<call id>") or
// a workflow id (every call of that run in the group).
type Decision struct {
	GroupID  string
	Decision string // signals.DecisionApprove or DecisionReject
	By       string
	Reason   string
	Only     []string
	Except   []string
}

// Check refuses a decision that cannot be sent.
func (d Decision) Check() error {
	var problems []string
	if !ValidGroupID(d.GroupID) {
		problems = append(problems, fmt.Sprintf("group %q is not a group id (%d hex digits, as the inbox lists them)", d.GroupID, groupIDLen))
	}
	if d.Decision != signals.DecisionApprove && d.Decision != signals.DecisionReject {
		problems = append(problems, fmt.Sprintf("decision %q: a group takes approve or reject", d.Decision))
	}
	if strings.TrimSpace(d.By) == "" {
		problems = append(problems, "by is empty: each run records who answered its call")
	}
	if len(d.Only) > 0 && len(d.Except) > 0 {
		problems = append(problems, "give only or except, not both")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// request is the approve message of one call: the person, and the group
// decision it came from as the reason.
func (d Decision) request(c Call) signals.ApproveRequest {
	verb := "approved"
	if d.Decision == signals.DecisionReject {
		verb = "rejected"
	}
	reason := fmt.Sprintf("group %s %s by %s", d.GroupID, verb, d.By)
	if r := strings.TrimSpace(d.Reason); r != "" {
		reason += ": " + r
	}
	return signals.ApproveRequest{CallID: c.CallID, Decision: d.Decision, Audit: signals.Audit{By: d.By, Reason: reason}}
}

// UnknownGroupError: nothing waits in the group, and no call was named.
// A group exists only while calls wait in it, so an id mistyped and a
// group whose calls were all settled meanwhile read the same.
type UnknownGroupError struct{ GroupID string }

func (e *UnknownGroupError) Error() string {
	return fmt.Sprintf("no call waits in group %s: it is no group of the inbox now (mistyped, or all its calls were settled meanwhile); `unstuck inbox` lists the groups", e.GroupID)
}

// Send settles one call: the caller's own approve path.
type Send func(ctx context.Context, c Call, req signals.ApproveRequest) error

// Skipped is a call named or listed that was not answered, and why (it
// no longer waits): not a failure.
type Skipped struct{ Ref, Why string }

// Failed is a call the approval of which failed.
type Failed struct {
	Ref string
	Err error
}

// Outcome is what a group decision did.
type Outcome struct {
	Answered []Call
	Skipped  []Skipped
	Failed   []Failed
	// Unread are runs listed as waiting whose status could not be read:
	// they may hold calls of the group, left unanswered.
	Unread []Unread
}

// Complete says whether every call of the group was answered or skipped.
func (o Outcome) Complete() bool { return len(o.Failed) == 0 && len(o.Unread) == 0 }

// Answer lists the inbox again (filter f), takes the calls of d's group
// still waiting (as d.Only and d.Except choose), and sends each its own
// approve message through send, AnswersInFlight at a time; progress (if
// set) hears of each one done. A call that no longer waits is skipped and
// counted; a failure of one run is kept with its reason and stops no other.
func Answer(ctx context.Context, tc client.Client, namespace string, f Filter, d Decision, send Send, progress func(done, total int)) (Outcome, error) {
	if err := d.Check(); err != nil {
		return Outcome{}, err
	}
	in, err := List(ctx, tc, namespace, f)
	if err != nil {
		return Outcome{}, err
	}
	g, found := in.Group(d.GroupID)
	if !found && len(d.Only) == 0 && len(in.Unread) == 0 {
		return Outcome{}, &UnknownGroupError{GroupID: d.GroupID}
	}
	out := Outcome{Unread: in.Unread}
	calls, skipped := choose(g.Calls, d)
	// A name of a run not read is told as unread, not as skipped.
	out.Skipped = slices.DeleteFunc(skipped, func(s Skipped) bool {
		return slices.ContainsFunc(in.Unread, func(u Unread) bool { return s.Ref == u.WorkflowID || strings.HasPrefix(s.Ref, u.WorkflowID+"/") })
	})
	results := make([]error, len(calls))
	var mu sync.Mutex
	n := 0
	var eg errgroup.Group
	eg.SetLimit(AnswersInFlight)
	for i, c := range calls {
		eg.Go(func() error {
			results[i] = answerOne(ctx, tc, c, d, send)
			mu.Lock()
			n++
			if progress != nil {
				progress(n, len(calls))
			}
			mu.Unlock()
			return nil
		})
	}
	_ = eg.Wait()
	for i, c := range calls {
		var skip *notWaitingError
		switch {
		case results[i] == nil:
			out.Answered = append(out.Answered, c)
		case errors.As(results[i], &skip):
			out.Skipped = append(out.Skipped, Skipped{Ref: c.Ref(), Why: skip.why})
		default:
			out.Failed = append(out.Failed, Failed{Ref: c.Ref(), Err: results[i]})
		}
	}
	return out, nil
}

// choose takes the group's calls d names, and skips the names that match
// no call waiting in the group.
func choose(calls []Call, d Decision) ([]Call, []Skipped) {
	if len(d.Only) == 0 {
		return slices.DeleteFunc(slices.Clone(calls), func(c Call) bool { return names(d.Except, c) }), nil
	}
	var out []Call
	for _, c := range calls {
		if names(d.Only, c) {
			out = append(out, c)
		}
	}
	var skipped []Skipped
	for _, name := range d.Only {
		if !slices.ContainsFunc(out, func(c Call) bool { return c.Ref() == name || c.WorkflowID == name }) {
			skipped = append(skipped, Skipped{Ref: name, Why: "no longer waits in the group"})
		}
	}
	return out, skipped
}

func names(list []string, c Call) bool {
	return slices.ContainsFunc(list, func(name string) bool { return name == c.Ref() || name == c.WorkflowID })
}

// notWaitingError: the call was settled, or its run ended, between the
// listing and its approval.
type notWaitingError struct{ why string }

func (e *notWaitingError) Error() string { return e.why }

// answerOne sends one call's approval. When that fails, the run says
// whether the call still waits: one settled or ended meanwhile is skipped,
// not failed (read from the run's state, not the error's text).
func answerOne(ctx context.Context, tc client.Client, c Call, d Decision, send Send) error {
	err := send(ctx, c, d.request(c))
	if err == nil || ctx.Err() != nil {
		return err
	}
	if why := stoppedWaiting(ctx, tc, c); why != "" {
		return &notWaitingError{why: why}
	}
	return err
}

// stoppedWaiting says why c no longer waits, or "" when it still does (or
// the run cannot tell).
func stoppedWaiting(ctx context.Context, tc client.Client, c Call) string {
	desc, err := tc.DescribeWorkflowExecution(ctx, c.WorkflowID, "")
	if err != nil {
		return ""
	}
	if s := desc.GetWorkflowExecutionInfo().GetStatus(); s != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return "the run ended (" + strings.ToLower(strings.TrimPrefix(s.String(), "WORKFLOW_EXECUTION_STATUS_")) + ")"
	}
	st, err := runmsg.Status(ctx, tc, c.WorkflowID, "")
	if err != nil {
		return ""
	}
	if !slices.ContainsFunc(st.PendingApprovals, func(p signals.PendingApproval) bool { return p.CallID == c.CallID }) {
		return "settled meanwhile"
	}
	return ""
}
