package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// renderTable writes one row per trace node, in trace (creation) order,
// then the failed checks and the edits in full (they hardly fit a row).
func renderTable(w io.Writer, tr signals.Trace) error {
	head := fmt.Sprintf("generation %d, %d nodes", tr.Generation, len(tr.Nodes))
	if n := countStatus(tr.Nodes, signals.StatusInvalidated); n > 0 {
		head += fmt.Sprintf(", %d invalidated", n)
	}
	fmt.Fprintln(w, head)
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
			cell(n.ID), cell(n.Kind), cell(n.Status), cell(n.Agent), cell(toolOf(n)),
			cell(parents), at, cell(nodeSummary(n)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	renderChecks(w, tr.Nodes)
	return renderEdits(w, tr.Nodes)
}

// toolOf is the tool that ran a call and, when a fallback served it, the
// tool the call asked for: "backup (fallback of book)"; for a read-back,
// the call it checks: "get_booking (read-back of n3)".
func toolOf(n signals.Node) string {
	switch {
	case n.FallbackOf != "":
		return n.Tool + " (fallback of " + n.FallbackOf + ")"
	case n.CheckOf != "":
		return n.Tool + " (read-back of " + n.CheckOf + ")"
	}
	return n.Tool
}

func countStatus(nodes []signals.Node, status signals.NodeStatus) int {
	n := 0
	for _, node := range nodes {
		if node.Status == status {
			n++
		}
	}
	return n
}

// editWidth is how many characters of an edit's before and after the
// edits section shows.
const editWidth = 200

// renderEdits writes each edit node's audit: who, why, before and after.
// Nothing at all when the trace has no edit.
func renderEdits(w io.Writer, nodes []signals.Node) error {
	var edits []signals.Node
	for _, n := range nodes {
		if isEdit(n) {
			edits = append(edits, n)
		}
	}
	if len(edits) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nedits:")
	for _, n := range edits {
		fmt.Fprintf(w, "  %s by %s, reason: %s\n", cell(n.ID), cell(n.By), cell(n.Reason))
		fmt.Fprintf(w, "    before: %s\n", editValue(n.Before))
		fmt.Fprintf(w, "    after:  %s\n", editValue(n.After))
	}
	return nil
}

func isEdit(n signals.Node) bool {
	return n.Kind == signals.KindEdit
}

func editValue(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "-"
	}
	return policies.ClipText(oneLine(compactJSON(raw)), editWidth)
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
// it failed, else (an edit) who changed what, else what it produced, else
// what it was asked. A write answered from the effect ledger says whose
// result it reused.
func nodeSummary(n signals.Node) string {
	var s string
	switch {
	case n.Check != nil && !n.Check.Passed:
		// The whole check follows the table (renderChecks).
		s = n.Check.Verdict() + ": " + n.Check.Reason
	case n.Error != "":
		s = "error: " + n.Error
	case n.Kind == signals.KindHandoff && n.To != "":
		// Not the output: that is the whole handoff context.
		s = handoffSummary(n)
	case isEdit(n):
		s = "by " + orDash(n.By)
		if n.Reason != "" {
			s += " (" + n.Reason + ")"
		}
		s += ": " + editValue(n.Before) + " -> " + editValue(n.After)
	case len(n.Output) > 0 && string(n.Output) != "null":
		s = "output: " + compactJSON(n.Output)
	case len(n.Args) > 0 && string(n.Args) != "null":
		s = "args: " + compactJSON(n.Args)
	}
	if n.Check != nil && n.Check.Passed {
		s = strings.TrimSuffix("verified; "+s, "; ")
	}
	if n.ReusedFrom != "" {
		s = strings.TrimSuffix("reused "+n.ReusedFrom+"; "+s, "; ")
	}
	return policies.ClipText(oneLine(s), summaryWidth)
}

// handoffSummary is a handoff on one line: who to whom, why, who asked
// (a person), and the candidates passed over.
func handoffSummary(n signals.Node) string {
	s := n.From + " -> " + n.To
	if n.Reason != "" {
		s += " (" + n.Reason + ")"
	}
	if n.By != "" {
		s += " by " + n.By
	}
	var refused []string
	for _, r := range n.Refused {
		refused = append(refused, r.Agent+": "+r.Why)
	}
	if len(refused) > 0 {
		s += "; refused " + strings.Join(refused, "; ")
	}
	return s
}
