package eval

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes sc as a Markdown report: the suite's summary, a
// line per case, then a table per case, the candidate beside its
// baseline. Case names and reasons are escaped, so one holding HTML or a
// table's | stays text.
func WriteMarkdown(w io.Writer, sc Scorecard) error {
	r := newReport(sc)
	var b strings.Builder
	fmt.Fprintf(&b, "# Eval report\n\nCompared with %s: **%s**.\n\n", mdText(r.Against), mdText(r.Verdict))
	b.WriteString("| suite | |\n|---|---|\n")
	for _, f := range r.Suite {
		fmt.Fprintf(&b, "| %s | %s |\n", f.Name, f.Now)
	}
	b.WriteString("\n| case | pass^k | change |\n|---|---|---|\n")
	for _, c := range r.Cases {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(c.Name), c.Figures[1].Now, mdCell(changeText(c)))
	}
	for _, c := range r.Cases {
		fmt.Fprintf(&b, "\n## %s\n\n| | candidate | baseline |\n|---|---|---|\n", mdText(c.Name))
		for _, f := range c.Figures {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", f.Name, f.Now, f.Then)
		}
		fmt.Fprintf(&b, "\nChange: %s.\n", mdText(changeText(c)))
		for _, why := range c.Why {
			fmt.Fprintf(&b, "\n- %s", mdText(why))
		}
		if len(c.Why) > 0 {
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// changeText is a report case's change with what moved.
func changeText(c reportCase) string { return changeWithNotes(c.Change, c.Notes) }

// mdEscaper escapes what Markdown would read as HTML or markup.
var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "#", `\#`,
	"\r\n", " ", "\n", " ",
)

// mdText is s as Markdown text.
func mdText(s string) string { return mdEscaper.Replace(s) }

// mdCell is s as the text of a table's cell, where | would end it.
func mdCell(s string) string { return strings.ReplaceAll(mdText(s), "|", `\|`) }
