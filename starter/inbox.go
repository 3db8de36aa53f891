package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/approvalinbox"
	"github.com/unstuck-dev/unstuck/internal/termtext"
)

type inboxOptions struct {
	filter approvalinbox.Filter
	calls  bool
	asJSON bool
}

func newInboxCmd(c *cli) *cobra.Command {
	var o inboxOptions
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "List the calls waiting for approval across runs, grouped by tool and shape of arguments, and the runs waiting for a reply",
		Long: `List the calls that wait for a person's approval in every running run of the
namespace, grouped by tool and by the shape of their arguments (their keys and
the kinds of their values, never the values: {amount: number, to: string}).
Each group shows its id, its count and its longest wait; the longest waiting
group comes first.

Answer a whole group, or part of it, with
  unstuck approve --group ID --decision approve|reject --by NAME [--only|--except ...]
Each run then records its own approval node, by NAME, its reason naming the
group decision. A group id is the same in every listing while its tool and
shape are: a group exists while calls wait in it. --group G keeps the calls
a member of the people group G may answer now (a tool whose approval names
by: [G, ...], escalated to G or past it); a call past half its wait's
timeout is flagged OVERDUE.

The runs and their calls come from one visibility listing (ExecutionStatus =
'Running' AND AgentPhase = 'awaiting_approval'): a waiting run lists its calls
in its memo unstuck_waiting. A run without one (more than 16 calls waiting, or
a worker from before) is read by its status query.

Below the groups come the runs waiting for a person's reply (phase
awaiting_human: a graph's human node, the ladder's human rung, a run handed to
a person), one by one, the longest waiting first, each with who may answer
(its approval's by:, escalated so far) and why it asks; --group G keeps those
G may answer, --tool lists none. Answer one with unstuck reply.

Equivalent temporal commands:
  temporal workflow list --query "WorkflowType = 'AgentWorkflow' AND ExecutionStatus = 'Running' AND AgentPhase = 'awaiting_approval'"
  temporal workflow describe --workflow-id WORKFLOW_ID   (its memo)
  temporal workflow query --workflow-id WORKFLOW_ID --type status`,
		Example: `  unstuck inbox
  unstuck inbox --agent travel --tool book_flight --calls
  unstuck inbox --group finance
  unstuck inbox --json | jq '.groups[] | {id, tool, count}'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.filter.Check(); err != nil {
				return usageErrorf("--%v", err)
			}
			return c.inbox(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.filter.Agent, "agent", "", "only the runs of this agent")
	f.StringVar(&o.filter.Tool, "tool", "", "only the calls of this tool")
	f.StringVar(&o.filter.Group, "group", "", "only the calls a member of this group (people.groups) may answer now")
	f.BoolVar(&o.calls, "calls", false, "list each group's calls too (WORKFLOW_ID/CALL_ID, agent, wait, arguments)")
	f.BoolVar(&o.asJSON, "json", false, "print the groups and their calls as JSON")
	return cmd
}

func (c *cli) inbox(ctx context.Context, w io.Writer, o inboxOptions) error {
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	in, err := approvalinbox.List(ctx, tc, c.namespace, o.filter)
	if err == nil {
		err = in.ListReplies(ctx, tc, c.namespace, o.filter)
	}
	if err != nil {
		return err
	}
	now := time.Now()
	if o.asJSON {
		return printJSON(w, inboxJSON(in, now))
	}
	renderInbox(w, in, now, o.calls)
	return nil
}

func renderInbox(w io.Writer, in approvalinbox.Inbox, now time.Time, calls bool) {
	if len(in.Groups) == 0 {
		fmt.Fprintln(w, "no call waits for approval")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "GROUP\tTOOL\tCALLS\tOLDEST WAIT\tSHAPE")
		for _, g := range in.Groups {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", g.ID, termtext.Visible(g.Tool), len(g.Calls), wait(now, g.Oldest()), termtext.Visible(g.Shape))
			if calls {
				for _, c := range g.Calls {
					fmt.Fprintf(tw, "  %s\t%s\t\t%s\t%s\n", termtext.Visible(c.Ref()), termtext.Visible(c.Agent), wait(now, c), termtext.Visible(clipText(string(c.Args), 80)))
				}
			}
		}
		_ = tw.Flush()
		oldest := in.Groups[0].Oldest()
		fmt.Fprintf(w, "\n%s in %s; the oldest has waited %s (%s)\n", count(in.Calls(), "call"), count(len(in.Groups), "group"),
			wait(now, oldest), termtext.Visible(oldest.Ref()))
		fmt.Fprintln(w, "answer a group: unstuck approve --group ID --decision approve|reject --by NAME")
	}
	renderReplies(w, in.Replies, now)
	for _, u := range in.Unread {
		fmt.Fprintf(w, "not read: %s: %s\n", termtext.Visible(u.WorkflowID), termtext.Visible(u.Err.Error()))
	}
}

// renderReplies lists the runs waiting for a person's reply, the longest
// waiting first (nothing when none waits).
func renderReplies(w io.Writer, replies []approvalinbox.Reply, now time.Time) {
	if len(replies) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s waiting for a reply:\n", count(len(replies), "run"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN/NODE\tAGENT\tWAIT\tANSWERING\tWHY")
	for _, r := range replies {
		answering := strings.Join(r.Answering, ", ")
		if answering == "" {
			answering = "anyone"
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\n", termtext.Visible(r.WorkflowID), r.NodeID, termtext.Visible(r.Agent), waitedFor(now, r.WaitingSince, r.Overdue(now)),
			termtext.Visible(answering), termtext.Visible(clipText(r.Why, 80)))
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "answer one: unstuck reply WORKFLOW_ID --text TEXT (--as NAME --key FILE where it names who answers)")
}

// wait is how long c has waited, to the second, and OVERDUE past half
// its wait's timeout.
func wait(now time.Time, c approvalinbox.Call) string { return waitedFor(now, c.Since, c.Overdue(now)) }

// waitedFor is how long a wait since since has lasted, to the second, and
// OVERDUE past half its timeout.
func waitedFor(now, since time.Time, overdue bool) string {
	s := now.Sub(since).Round(time.Second).String()
	if overdue {
		s += " OVERDUE"
	}
	return s
}

// count says "1 call", "2 calls".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// inboxOut is `unstuck inbox --json`.
type inboxOut struct {
	Calls   int                   `json:"calls"`
	Groups  []inboxGroupOut       `json:"groups"`
	Replies []approvalinbox.Reply `json:"replies"`
	Unread  []inboxUnreadOut      `json:"unread"`
}

type inboxGroupOut struct {
	ID                string         `json:"id"`
	Tool              string         `json:"tool"`
	Shape             string         `json:"shape"`
	Count             int            `json:"count"`
	OldestSince       time.Time      `json:"oldest_since"`
	OldestWaitSeconds float64        `json:"oldest_wait_seconds"`
	Calls             []inboxCallOut `json:"calls"`
}

type inboxCallOut struct {
	Ref         string          `json:"ref"`
	WorkflowID  string          `json:"workflow_id"`
	CallID      string          `json:"call_id"`
	Agent       string          `json:"agent"`
	Args        json.RawMessage `json:"args"`
	Since       time.Time       `json:"since"`
	WaitSeconds float64         `json:"wait_seconds"`
	Deadline    time.Time       `json:"deadline,omitzero"`
	Overdue     bool            `json:"overdue,omitempty"`
}

type inboxUnreadOut struct {
	WorkflowID string `json:"workflow_id"`
	Error      string `json:"error"`
}

func inboxJSON(in approvalinbox.Inbox, now time.Time) inboxOut {
	out := inboxOut{Calls: in.Calls(), Groups: []inboxGroupOut{}, Replies: in.Replies, Unread: []inboxUnreadOut{}}
	if out.Replies == nil {
		out.Replies = []approvalinbox.Reply{}
	}
	for _, g := range in.Groups {
		og := inboxGroupOut{ID: g.ID, Tool: g.Tool, Shape: g.Shape, Count: len(g.Calls),
			OldestSince: g.Oldest().Since, OldestWaitSeconds: now.Sub(g.Oldest().Since).Seconds()}
		for _, c := range g.Calls {
			og.Calls = append(og.Calls, inboxCallOut{Ref: c.Ref(), WorkflowID: c.WorkflowID, CallID: c.CallID, Agent: c.Agent,
				Args: argsOrNull(c.Args), Since: c.Since, WaitSeconds: now.Sub(c.Since).Seconds(),
				Deadline: c.Deadline, Overdue: c.Overdue(now)})
		}
		out.Groups = append(out.Groups, og)
	}
	for _, u := range in.Unread {
		out.Unread = append(out.Unread, inboxUnreadOut{WorkflowID: u.WorkflowID, Error: u.Err.Error()})
	}
	return out
}

func argsOrNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return json.RawMessage("null")
	}
	return raw
}
