package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// renderStatus writes a run's status as a readable block; lists that are
// empty say "none" so a missing line is never ambiguous. now is when it is
// read, for how long an outage has been waited out.
func renderStatus(w io.Writer, st signals.Status, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "agent:\t%s\n", cell(st.Agent))
	fmt.Fprintf(tw, "phase:\t%s\n", cell(st.Phase))
	if st.Outage != nil {
		fmt.Fprintf(tw, "outage:\t%s\n", oneLine(st.Outage.Describe(now)))
	}
	fmt.Fprintf(tw, "step:\t%d\n", st.Step)
	fmt.Fprintf(tw, "generation:\t%d\n", st.Generation)
	fmt.Fprintf(tw, "last error:\t%s\n", cell(st.LastError))
	handoffs := "none"
	if len(st.HandoffPath) > 0 {
		handoffs = oneLine(strings.Join(st.HandoffPath, " -> "))
	}
	fmt.Fprintf(tw, "handoff path:\t%s\n", handoffs)
	fmt.Fprintf(tw, "fallbacks:\t%d\n", st.Fallbacks)
	if st.Unverified > 0 {
		// Only when some call failed its check: most runs check nothing.
		fmt.Fprintf(tw, "unverified:\t%d\n", st.Unverified)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	section(w, "pending approvals", len(st.PendingApprovals), func(tw *tabwriter.Writer) {
		for _, p := range st.PendingApprovals {
			args := "-"
			if len(p.Args) > 0 {
				args = policies.ClipText(oneLine(compactJSON(p.Args)), summaryWidth)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s%s\n", cell(p.CallID), cell(p.Tool), args, approvalDue(p, now))
		}
	})
	if r := st.PendingReply; r != nil {
		renderReplyWait(w, r, now)
	}
	// Map order is random; sorted tools keep the output stable.
	tools := make([]string, 0, len(st.Breakers))
	for t := range st.Breakers {
		tools = append(tools, t)
	}
	slices.Sort(tools)
	section(w, "breakers", len(tools), func(tw *tabwriter.Writer) {
		for _, t := range tools {
			fmt.Fprintf(tw, "  %s\t%s\n", cell(t), cell(st.Breakers[t]))
		}
	})
	section(w, "loops", len(st.Loops), func(tw *tabwriter.Writer) {
		for _, l := range st.Loops {
			fmt.Fprintf(tw, "  at %s\t%s\t%s\tx%d\n", cell(l.At), cell(l.Kind), cell(strings.Join(l.Cycle, " -> ")), l.Repeats)
		}
	})
	if st.LoopsDropped > 0 {
		fmt.Fprintf(w, "  (and %d earlier loops, not listed)\n", st.LoopsDropped)
	}
	renderSpend(w, st.Spend)
	return nil
}

// renderReplyWait writes the human node waiting for a person's reply:
// which, who may answer (anyone, or the groups asked so far), how long it
// waited and why it asks.
func renderReplyWait(w io.Writer, r *signals.PendingReply, now time.Time) {
	at := r.NodeID
	if r.GraphNode != "" {
		at += " (graph node " + r.GraphNode + ")"
	}
	from := "anyone"
	if len(r.Answering) > 0 {
		from = strings.Join(r.Answering, ", ") + " (a signed reply: unstuck reply --as NAME --key FILE)"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "waiting for a reply:\t%s, from %s%s\n", cell(at), oneLine(from), waitDue(r.WaitingSince, r.Deadline, r.Escalations, r.Overdue, now))
	fmt.Fprintf(tw, "  why:\t%s\n", cell(policies.ClipText(oneLine(r.Why), summaryWidth)))
	tw.Flush()
}

// renderSpend writes what the run spent, each kind against its budget's
// limit when it has one.
func renderSpend(w io.Writer, sp *signals.SpendStatus) {
	if sp == nil {
		fmt.Fprintln(w, "spend: none")
		return
	}
	fmt.Fprintln(w, "spend:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name string, v any) {
		limit := ""
		if l, ok := sp.Limits[name]; ok {
			limit = fmt.Sprintf("of %v", l)
		}
		fmt.Fprintf(tw, "  %s\t%v\t%s\n", name, v, limit)
	}
	row("model_requests", sp.ModelRequests)
	row("input_tokens", sp.InputTokens)
	row("output_tokens", sp.OutputTokens)
	row("tool_calls", sp.ToolCalls)
	if sp.Currency != "" {
		row("cost", fmt.Sprintf("%.4f %s", sp.Cost, sp.Currency))
	}
	if _, ok := sp.Limits["wall_time"]; ok {
		row("wall_time", cell(sp.WallTime))
	}
	if sp.Estimated > 0 {
		fmt.Fprintf(tw, "  (tokens of %d requests counted by the worker: the provider reported none)\t\t\n", sp.Estimated)
	}
	tw.Flush()
}

// section writes "title: none" or the title and its aligned rows.
func section(w io.Writer, title string, n int, rows func(*tabwriter.Writer)) {
	if n == 0 {
		fmt.Fprintf(w, "%s: none\n", title)
		return
	}
	fmt.Fprintf(w, "%s:\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	rows(tw)
	tw.Flush()
}
