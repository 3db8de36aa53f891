package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/unstuck-dev/unstuck/internal/termtext"
)

// WriteTable writes sc as the terminal's scorecard: a line per case, its
// figures (means over its runs) beside the recording's, then the suite.
func WriteTable(w io.Writer, sc Scorecard) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	then := "RECORDED"
	if sc.Suite.Baseline != "" {
		then = "BASELINE"
	}
	fmt.Fprintln(tw, "CASE\tPASS\tPASS^K\tSTEPS\tREQUESTS\tTOKENS\tCOST\tLOOPS\tTO-PROGRESS\tRUNGS\tREPAIRS\tDIVERGED\t"+then+"\tCHANGE")
	for _, c := range sc.Cases {
		recorded := "-"
		if b := c.Baseline; b != nil {
			recorded = fmt.Sprintf("%d/%d, %s steps", b.Passed, b.Runs, num(b.Mean.Steps))
		} else if r := c.Recorded; r != nil && sc.Suite.Baseline == "" {
			recorded = fmt.Sprintf("%s, %s steps", passWord(r.Pass), num(r.Figures.Steps))
		}
		change := changeWithNotes(c.Change, c.Notes)
		m := c.Mean
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", termtext.Visible(c.Case), c.Passed, c.Runs, yesNo(c.PassK),
			num(m.Steps), num(m.ModelRequests), num(m.InputTokens+m.OutputTokens), num(m.Cost),
			num(m.Loops), progressText(m), num(m.Rungs), num(m.Repairs), c.Diverged, recorded, change)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range sc.Cases {
		for _, why := range c.Why {
			// A judge's reason, a diverged call's tool: a model wrote them.
			fmt.Fprintf(w, "  %s: %s\n", termtext.Visible(c.Case), termtext.Visible(why))
		}
	}
	s := sc.Suite
	_, err := fmt.Fprintf(w, "suite: pass^k %d/%d cases, runs passed %d/%d, %d worse, %d better, %d diverged call(s), %s tokens, cost %s, loop to progress %s; %s\n",
		s.PassK, s.Cases, s.Passed, s.Runs, s.Worse, s.Better, s.Diverged, num(s.Total.InputTokens+s.Total.OutputTokens), num(s.Total.Cost), progressText(s.Total), sc.verdict())
	return err
}

// progressText is the time from a loop to progress and the loops stuck
// (no progress after them): "2.5s", "2.5s, 1 stuck", "1 stuck", or "-".
func progressText(f Figures) string {
	var parts []string
	if s := f.LoopToProgress; s != nil {
		parts = append(parts, num(*s)+"s")
	}
	if f.LoopsWithoutProgress > 0 {
		parts = append(parts, num(f.LoopsWithoutProgress)+" stuck")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func passWord(pass bool) string {
	if pass {
		return "pass"
	}
	return "fail"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
