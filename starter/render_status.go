package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/unstuck-dev/unstuck/signals"
)

// renderStatus writes a run's status as a readable block; lists that are
// empty say "none" so a missing line is never ambiguous.
func renderStatus(w io.Writer, st signals.Status) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "agent:\t%s\n", cell(st.Agent))
	fmt.Fprintf(tw, "phase:\t%s\n", cell(st.Phase))
	fmt.Fprintf(tw, "step:\t%d\n", st.Step)
	fmt.Fprintf(tw, "generation:\t%d\n", st.Generation)
	fmt.Fprintf(tw, "last error:\t%s\n", cell(st.LastError))
	handoffs := "none"
	if len(st.HandoffPath) > 0 {
		handoffs = oneLine(strings.Join(st.HandoffPath, " -> "))
	}
	fmt.Fprintf(tw, "handoff path:\t%s\n", handoffs)
	fmt.Fprintf(tw, "fallbacks:\t%d\n", st.Fallbacks)
	if err := tw.Flush(); err != nil {
		return err
	}

	section(w, "pending approvals", len(st.PendingApprovals), func(tw *tabwriter.Writer) {
		for _, p := range st.PendingApprovals {
			args := "-"
			if len(p.Args) > 0 {
				args = truncate(oneLine(compactJSON(p.Args)), summaryWidth)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", cell(p.CallID), cell(p.Tool), args)
		}
	})
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
	return nil
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
