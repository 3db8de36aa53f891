package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/unstuck-dev/unstuck/approvalinbox"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
)

// maxGroupCallsShown bounds the calls a group lists for ticking: the
// group's buttons still answer all of them.
const maxGroupCallsShown = 100

// approvalsView is GET /approvals: the fleet's calls waiting for
// approval, by group (approvalinbox).
type approvalsView struct {
	Namespace string
	Filter    approvalinbox.Filter
	Groups    []approvalGroup
	Calls     int
	Oldest    string // the longest wait of all
	Unread    []approvalinbox.Unread
	Error     string
	// Replies are the runs waiting for a person's reply, each answered on
	// its run's page.
	Replies []approvalReply
}

// approvalReply is a run waiting for a reply at a human node.
type approvalReply struct {
	WorkflowID, NodeID, GraphNode, Agent, Why, Waited string
	Answering                                         []string
	Overdue                                           bool
}

type approvalGroup struct {
	ID, Tool, Shape string
	Count           int
	Oldest          string
	Calls           []approvalCall
	More            int // calls of the group not listed
}

type approvalCall struct {
	Ref, WorkflowID, CallID, Agent, Waited string
	Args                                   json.RawMessage
	// Overdue: waited past half its wait's timeout.
	Overdue bool
}

// approvals is GET /approvals?agent=&tool=.
func (c *Console) approvals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := approvalinbox.Filter{Agent: strings.TrimSpace(q.Get("agent")), Tool: strings.TrimSpace(q.Get("tool")), Group: strings.TrimSpace(q.Get("group"))}
	v := approvalsView{Namespace: c.opts.Namespace, Filter: f}
	if err := f.Check(); err != nil {
		v.Error = "?" + err.Error()
		c.render(w, http.StatusBadRequest, "approvals.html", v)
		return
	}
	in, err := approvalinbox.List(r.Context(), c.tc, c.opts.Namespace, f)
	if err == nil {
		err = in.ListReplies(r.Context(), c.tc, c.opts.Namespace, f)
	}
	if err != nil {
		v.Error = err.Error()
		c.render(w, http.StatusBadGateway, "approvals.html", v)
		return
	}
	now := c.opts.Now()
	v.Calls, v.Unread = in.Calls(), in.Unread
	for _, g := range in.Groups {
		ag := approvalGroup{ID: g.ID, Tool: g.Tool, Shape: g.Shape, Count: len(g.Calls), Oldest: waited(now, g.Oldest().Since)}
		for i, call := range g.Calls {
			if i == maxGroupCallsShown {
				ag.More = len(g.Calls) - i
				break
			}
			ag.Calls = append(ag.Calls, approvalCall{Ref: call.Ref(), WorkflowID: call.WorkflowID, CallID: call.CallID,
				Agent: call.Agent, Waited: waited(now, call.Since), Overdue: call.Overdue(now), Args: call.Args})
		}
		v.Groups = append(v.Groups, ag)
	}
	if len(in.Groups) > 0 {
		v.Oldest = waited(now, in.Groups[0].Oldest().Since)
	}
	for _, rp := range in.Replies {
		v.Replies = append(v.Replies, approvalReply{WorkflowID: rp.WorkflowID, NodeID: rp.NodeID, GraphNode: rp.GraphNode, Agent: rp.Agent,
			Why: rp.Why, Waited: waited(now, rp.WaitingSince), Answering: rp.Answering, Overdue: rp.Overdue(now)})
	}
	c.render(w, http.StatusOK, "approvals.html", v)
}

// waited says how long since t, coarsely: "42s", "5m", "3h" (to two
// days), "2d".
func waited(now, t time.Time) string {
	d := now.Sub(t).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// answerGroup is POST /approvals/answer: group, decision (the button),
// by, reason, and the calls ticked (none: the whole group as it waits
// now). Each call is settled by its own approve update, as POST
// /runs/{id}/approve sends it.
func (c *Console) answerGroup(w http.ResponseWriter, r *http.Request) {
	get, err := form(w, r)
	if err == nil {
		get, err = asWho(r, get)
	}
	if err != nil {
		c.sendAnswer(w, refusedf("not sent: %v", err))
		return
	}
	d := approvalinbox.Decision{GroupID: strings.TrimSpace(get("group")), Decision: get("decision"),
		By: strings.TrimSpace(get("by")), Reason: strings.TrimSpace(get("reason")), Only: r.PostForm["call"]}
	f := approvalinbox.Filter{Agent: strings.TrimSpace(get("agent"))}
	if err := errors.Join(d.Check(), f.Check()); err != nil {
		c.sendAnswer(w, refusedf("not sent: %v", err))
		return
	}
	out, err := approvalinbox.Answer(r.Context(), c.tc, c.opts.Namespace, f, d, c.sendApproval, nil)
	if err != nil {
		c.sendAnswer(w, answer{Text: err.Error()})
		return
	}
	c.sendAnswer(w, answer{OK: out.Complete(), Text: groupAnswerText(d, out)})
}

// sendApproval sends one approve update, signed as the run page's
// approve is (signApproval).
func (c *Console) sendApproval(ctx context.Context, call approvalinbox.Call, req signals.ApproveRequest) error {
	if err := c.signApproval(ctx, call.WorkflowID, call.Known(), &req); err != nil {
		return err
	}
	var res signals.ApproveResult
	return runmsg.Update(ctx, c.tc, call.WorkflowID, "", signals.Approve, req, &res)
}

func groupAnswerText(d approvalinbox.Decision, out approvalinbox.Outcome) string {
	verb := "approved"
	if d.Decision == signals.DecisionReject {
		verb = "rejected"
	}
	text := fmt.Sprintf("group %s: %d %s, %d skipped, %d failed", d.GroupID, len(out.Answered), verb, len(out.Skipped), len(out.Failed))
	for _, s := range out.Skipped {
		text += fmt.Sprintf("; skipped %s: %s", s.Ref, s.Why)
	}
	for _, f := range out.Failed {
		text += fmt.Sprintf("; failed %s: %v", f.Ref, f.Err)
	}
	for _, u := range out.Unread {
		text += fmt.Sprintf("; not read (may hold calls of the group; answer again): %s: %v", u.WorkflowID, u.Err)
	}
	return text
}
