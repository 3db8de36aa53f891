package approvalinbox

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"golang.org/x/sync/errgroup"

	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// ReadsInFlight is how many runs' status the inbox reads at once: enough
// that 1,000 waiting runs answer within a second, few enough that a
// worker's query handling is not flooded; a run whose worker is down
// answers only when its query times out and holds up no others.
const ReadsInFlight = 32

// listPageSize is the visibility page: the largest the server gives.
const listPageSize = 1000

// Filter narrows the inbox to one agent or one tool (empty: all).
type Filter struct {
	Agent, Tool string
	// Group: only calls a member of this group of people.groups may
	// answer now (a tool whose approval names by:).
	Group string
}

// keeps says whether f lists a call of tool answered by groups.
func (f Filter) keeps(tool string, groups []string) bool {
	return (f.Tool == "" || tool == f.Tool) && (f.Group == "" || slices.Contains(groups, f.Group))
}

// Check refuses a filter that cannot be quoted into a visibility query.
func (f Filter) Check() error {
	for _, v := range []struct{ name, value string }{{"agent", f.Agent}, {"tool", f.Tool}, {"group", f.Group}} {
		if len(v.value) > 200 || strings.ContainsFunc(v.value, func(r rune) bool {
			return r == '\'' || r == '"' || r == '\\' || r == '`' || unicode.IsControl(r)
		}) {
			return fmt.Errorf("%s %q is not a name (no quotes, backslashes or control characters, at most 200 bytes)", v.name, v.value)
		}
	}
	return nil
}

// Call is one call waiting for approval.
type Call struct {
	WorkflowID string
	RunID      string
	Agent      string
	CallID     string
	Tool       string
	Args       json.RawMessage // absent when a memo left large ones out
	// Shape is the shape of Args (policies.ArgShape), when known without them.
	Shape string
	// Since is when the call began to wait, Deadline when its wait times
	// out (zero: not known).
	Since, Deadline time.Time
	// Answering are the groups whose members may answer it now (none: a
	// tool whose approval names no one).
	Answering []string
	// Chain is the run's first run id, which a signed approval binds, when
	// the listing says it ("" otherwise).
	Chain string
}

// Known is what signing an approval of c needs to know of its run: its
// chain and the tool it waits for (runmsg.Sign reads what is missing).
func (c Call) Known() runmsg.Known { return runmsg.Known{Chain: c.Chain, Tool: c.Tool} }

// Overdue: the call has waited past half its wait's timeout (as the
// run's status and unstuck_approvals_past_half count it).
func (c Call) Overdue(now time.Time) bool { return overdue(c.Since, c.Deadline, now) }

// overdue: a wait that began at since and times out at deadline (zero:
// not known) has passed half its timeout at now.
func overdue(since, deadline, now time.Time) bool {
	return !deadline.IsZero() && policies.PastHalf(since, deadline, now)
}

// Ref names the call across runs: "<workflow id>/<call id>" (a call id
// never holds a slash; a workflow id may).
func (c Call) Ref() string { return c.WorkflowID + "/" + c.CallID }

// Group is the calls of one tool and one argument shape, the longest
// waiting first.
type Group struct {
	ID, Tool, Shape string
	Calls           []Call
}

// Oldest is the call of the group that has waited longest.
func (g Group) Oldest() Call { return g.Calls[0] }

// Unread is a run listed as waiting whose status could not be read.
type Unread struct {
	WorkflowID string
	Err        error
}

// Inbox is what waits: the groups, the longest waiting first, and the
// runs that could not be read.
type Inbox struct {
	Groups []Group
	// Replies are the runs waiting for a person's reply (ListReplies).
	Replies []Reply
	Unread  []Unread
}

// Calls counts the calls of every group.
func (in Inbox) Calls() int {
	n := 0
	for _, g := range in.Groups {
		n += len(g.Calls)
	}
	return n
}

// Group finds the group of an id.
func (in Inbox) Group(id string) (Group, bool) {
	for _, g := range in.Groups {
		if g.ID == id {
			return g, true
		}
	}
	return Group{}, false
}

// Query selects the running runs of AgentWorkflow waiting for approval
// (of agent f.Agent): tools have no search attribute, so f.Tool is
// applied to the calls read.
func Query(f Filter) string { return phaseQuery(f, signals.PhaseAwaitingApproval) }

// phaseQuery selects the running runs of AgentWorkflow in phase (of agent
// f.Agent).
func phaseQuery(f Filter, phase signals.Phase) string {
	q := fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running' AND %s = '%s'",
		workflows.WorkflowName, signals.AttrAgentPhase, phase)
	if f.Agent != "" {
		q += fmt.Sprintf(" AND %s = '%s'", signals.AttrAgentName, f.Agent)
	}
	return q
}

// List reads the inbox of namespace: the waiting runs from the visibility
// store, with the calls each lists in its memo (signals.MemoWaiting); the
// status of a run without one (a worker from before it, or more calls
// waiting than the memo holds), ReadsInFlight at a time. A run that does
// not answer twice is listed as Unread.
func List(ctx context.Context, tc client.Client, namespace string, f Filter) (Inbox, error) {
	if err := f.Check(); err != nil {
		return Inbox{}, err
	}
	runs, err := waitingRuns(ctx, tc, namespace, Query(f))
	if err != nil {
		return Inbox{}, err
	}
	calls := make([][]Call, len(runs))
	for i, r := range runs {
		if r.memo != nil {
			calls[i] = r.memoCalls(f)
		}
	}
	errs := readEach(ctx, runs, func(r waitingRun) bool { return r.memo == nil }, func(i int, r waitingRun) (err error) {
		calls[i], err = r.waitingCalls(ctx, tc, f)
		return err
	})
	var in Inbox
	var all []Call
	for i, r := range runs {
		if errs[i] != nil {
			in.Unread = append(in.Unread, Unread{WorkflowID: r.workflowID, Err: errs[i]})
			continue
		}
		all = append(all, calls[i]...)
	}
	in.Groups = GroupCalls(all)
	return in, nil
}

// readEach reads each run of runs that need keeps with read, ReadsInFlight
// at a time; a run not read in time (its worker busy) is asked once
// more, once the others have answered. It answers each run's error (nil:
// read, or not needed).
func readEach(ctx context.Context, runs []waitingRun, need func(waitingRun) bool, read func(i int, r waitingRun) error) []error {
	errs := make([]error, len(runs))
	var g errgroup.Group
	g.SetLimit(ReadsInFlight)
	for pass := range 2 {
		for i, r := range runs {
			if (pass == 0 && need(r)) || (pass == 1 && errs[i] != nil && ctx.Err() == nil) {
				g.Go(func() error {
					errs[i] = read(i, r)
					return nil
				})
			}
		}
		_ = g.Wait()
	}
	return errs
}

// waitingRun is a run the visibility store lists as waiting for approval.
type waitingRun struct {
	workflowID, runID, agent, chain string
	started                         time.Time
	// memo is the calls the run lists as waiting, when it lists them all.
	memo *signals.WaitingMemo
}

func waitingRuns(ctx context.Context, tc client.Client, namespace, q string) ([]waitingRun, error) {
	var runs []waitingRun
	var token []byte
	for {
		resp, err := tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: namespace, PageSize: listPageSize, Query: q, NextPageToken: token,
		})
		if err != nil {
			return nil, fmt.Errorf("list the runs waiting for a person (%s) in namespace %q: %w", q, namespace, err)
		}
		for _, e := range resp.GetExecutions() {
			runs = append(runs, waitingRun{
				workflowID: e.GetExecution().GetWorkflowId(), runID: e.GetExecution().GetRunId(), chain: e.GetFirstRunId(),
				agent:   runmsg.Keyword(e.GetSearchAttributes().GetIndexedFields()[signals.AttrAgentName]),
				started: e.GetStartTime().AsTime(),
				memo:    waitingMemo(e.GetMemo().GetFields()[signals.MemoWaiting]),
			})
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return runs, nil
		}
	}
}

// waitingMemo decodes a run's memo of calls waiting, nil when it has
// none, it cannot be read, or it does not list every call.
func waitingMemo(p *commonpb.Payload) *signals.WaitingMemo {
	if p == nil {
		return nil
	}
	var m signals.WaitingMemo
	if converter.GetDefaultDataConverter().FromPayload(p, &m) != nil || m.More > 0 || len(m.Calls) == 0 {
		return nil
	}
	return &m
}

// memoCalls are the calls of the run's memo that f keeps.
func (r waitingRun) memoCalls(f Filter) []Call {
	var out []Call
	for _, w := range r.memo.Calls {
		if !f.keeps(w.Tool, w.Answering) {
			continue
		}
		out = append(out, Call{WorkflowID: r.workflowID, RunID: r.runID, Agent: r.agent, CallID: w.CallID, Tool: w.Tool,
			Args: w.Args, Shape: w.Shape, Since: w.Since, Deadline: w.Deadline, Answering: w.Answering, Chain: r.chain})
	}
	return out
}

// waitingCalls asks the run's status for its calls waiting that f keeps.
// A run that stopped waiting meanwhile answers none.
func (r waitingRun) waitingCalls(ctx context.Context, tc client.Client, f Filter) ([]Call, error) {
	st, err := runmsg.Status(ctx, tc, r.workflowID, "") // the latest run: it may have continued as new since the listing
	if err != nil {
		return nil, err
	}
	var out []Call
	for _, p := range st.PendingApprovals {
		if !f.keeps(p.Tool, p.Answering) {
			continue
		}
		c := Call{WorkflowID: r.workflowID, RunID: r.runID, Agent: st.Agent, CallID: p.CallID, Tool: p.Tool, Args: p.Args,
			Since: p.WaitingSince, Deadline: p.Deadline, Answering: p.Answering, Chain: r.chain}
		if c.Agent == "" {
			c.Agent = r.agent
		}
		if c.Since.IsZero() { // a worker from before calls told when they began to wait
			c.Since = r.started
		}
		out = append(out, c)
	}
	return out, nil
}

// GroupCalls groups calls by tool and shape: in each group the longest
// waiting first, and the group whose oldest call waited longest first
// (ties by tool, then shape, so a listing reads the same twice).
func GroupCalls(calls []Call) []Group {
	byID := map[string]*Group{}
	var groups []*Group
	for _, c := range calls {
		shape := c.Shape
		if shape == "" {
			shape = Shape(c.Args)
		}
		id := GroupID(c.Tool, shape)
		g := byID[id]
		if g == nil {
			g = &Group{ID: id, Tool: c.Tool, Shape: shape}
			byID[id] = g
			groups = append(groups, g)
		}
		g.Calls = append(g.Calls, c)
	}
	out := make([]Group, len(groups))
	for i, g := range groups {
		sort.SliceStable(g.Calls, func(a, b int) bool { return olderCall(g.Calls[a], g.Calls[b]) })
		out[i] = *g
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if !x.Oldest().Since.Equal(y.Oldest().Since) {
			return x.Oldest().Since.Before(y.Oldest().Since)
		}
		if x.Tool != y.Tool {
			return x.Tool < y.Tool
		}
		return x.Shape < y.Shape
	})
	return out
}

func olderCall(a, b Call) bool {
	if !a.Since.Equal(b.Since) {
		return a.Since.Before(b.Since)
	}
	return a.Ref() < b.Ref()
}
