package main

import (
	"fmt"
	"io"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// renderChecks writes each call that failed its check (docs/verify.md),
// then each whose read-back could not read: what it was held to, every
// value the check read, why, and the read-back call that read them.
// Nothing when every check passed.
func renderChecks(w io.Writer, nodes []signals.Node) {
	renderVerdicts(w, nodes, signals.VerdictUnverified, "unverified calls:")
	renderVerdicts(w, nodes, signals.VerdictUnknown, "calls whose outcome is unknown (their read-back could not read):")
}

// renderVerdicts writes the calls whose check's verdict is verdict, under
// title.
func renderVerdicts(w io.Writer, nodes []signals.Node, verdict, title string) {
	var failed []signals.Node
	for _, n := range nodes {
		if n.Check != nil && n.Check.Verdict() == verdict {
			failed = append(failed, n)
		}
	}
	if len(failed) == 0 {
		return
	}
	fmt.Fprintln(w, "\n"+title)
	for _, n := range failed {
		ck := n.Check
		fmt.Fprintf(w, "  %s %s, %s", cell(n.ID), cell(n.Tool), ck.Kind)
		if ck.Condition != "" {
			fmt.Fprintf(w, " %s", oneLine(ck.Condition))
		}
		if ck.ReadBack != "" {
			fmt.Fprintf(w, " (read-back %s)", cell(ck.ReadBack))
		}
		fmt.Fprintln(w)
		for _, s := range ck.Seen {
			fmt.Fprintf(w, "    %s = %s\n", cell(s.Path), policies.ClipText(oneLine(compactJSON(s.Value)), editWidth))
		}
		fmt.Fprintf(w, "    reason: %s\n", cell(ck.Reason))
	}
}
