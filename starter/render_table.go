package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/unstuck-dev/unstuck/signals"
)

// renderTable writes one row per trace node, in trace (creation) order.
func renderTable(w io.Writer, tr signals.Trace) error {
	fmt.Fprintf(w, "generation %d, %d nodes\n", tr.Generation, len(tr.Nodes))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSTATUS\tAGENT\tTOOL\tPARENTS\tAT\tSUMMARY")
	for _, n := range tr.Nodes {
		parents := "-"
		if len(n.Parents) > 0 {
			parents = strings.Join(n.Parents, ",")
		}
		at := "-"
		if !n.At.IsZero() {
			// The time as the workflow recorded it (workflow time, UTC).
			at = n.At.Format("15:04:05.000")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			cell(n.ID), cell(n.Kind), cell(n.Status), cell(n.Agent), cell(n.Tool),
			cell(parents), at, cell(nodeSummary(n)))
	}
	return tw.Flush()
}

// cell keeps a value on one line inside its column; "-" marks empty.
func cell[S ~string](v S) string {
	s := oneLine(string(v))
	if s == "" {
		return "-"
	}
	return s
}

// nodeSummary is the most telling part of a node on one short line: why
// it failed, else what it produced, else what it was asked.
func nodeSummary(n signals.Node) string {
	var s string
	switch {
	case n.Error != "":
		s = "error: " + n.Error
	case len(n.Output) > 0 && string(n.Output) != "null":
		s = "output: " + compactJSON(n.Output)
	case len(n.Args) > 0 && string(n.Args) != "null":
		s = "args: " + compactJSON(n.Args)
	}
	return truncate(oneLine(s), summaryWidth)
}
