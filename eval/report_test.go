package eval

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileScorecard has a case whose name and reason are HTML and
// Markdown, beside the baseline.
func hostileScorecard(t *testing.T) Scorecard {
	t.Helper()
	sc := reportScorecard(t)
	sc.Cases[1].Case = "<script>alert(1)</script>|x"
	sc.Cases[1].Why = []string{"output <b>bold</b> is not the expected"}
	base := baseline()
	base.Cases[1].Case = sc.Cases[1].Case
	return Compare(sc, base, "base.json")
}

func TestReportKind(t *testing.T) {
	for _, tc := range []struct{ path, kind, err string }{
		{"r.md", ReportMarkdown, ""},
		{"out/R.HTML", ReportHTML, ""},
		{"r.pdf", "", `report r.pdf: the extension says the format, .md (Markdown) or .html, not ".pdf"`},
		{"report", "", `not ""`},
	} {
		kind, err := ReportKind(tc.path)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.path)
			continue
		}
		require.NoError(t, err, tc.path)
		require.Equal(t, tc.kind, kind, tc.path)
	}
}

// render is sc as write writes it.
func render(t *testing.T, write func(io.Writer, Scorecard) error, sc Scorecard) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, write(&b, sc))
	return b.String()
}

// The Markdown report: the verdict, the suite, a line per case, a table
// per case beside its baseline; a name holding HTML or | stays text.
func TestWriteMarkdown(t *testing.T) {
	md := render(t, WriteMarkdown, hostileScorecard(t))
	for _, want := range []string{
		"Compared with the baseline base.json: **WORSE than the baseline base.json: 1 of 4 case(s) lost their pass",
		"| cases passing pass^k | 3/4 |",
		"| &lt;script&gt;alert(1)&lt;/script&gt;\\|x | no | lost; steps up 4→9, loops up 1→3, cost up 0.03→0.05 |",
		"| gained | yes | gained; steps down 5→3, loops down 2→0 |",
		"| new | yes | not in baseline |",
		"## kept\n\n| | candidate | baseline |\n|---|---|---|\n| pass | 1/1 | 1/1 |\n| pass^k | yes | yes |\n| steps | 2 | 2 |\n| loops | 0 | 0 |\n| loop to progress | - | - |\n| cost | 0.01 | 0.02 |\n| diverged | 0 | 0 |\n",
		"## new\n\n| | candidate | baseline |\n|---|---|---|\n| pass | 1/1 | - |",
		"- output &lt;b&gt;bold&lt;/b&gt; is not the expected",
	} {
		require.Contains(t, md, want)
	}
	require.NotContains(t, md, "<script>")
	require.NotContains(t, md, "<b>")

	// Without --baseline, the recording is the baseline.
	seconds := 4.0
	cases := []*Case{{Name: "c", Recorded: &Outcome{Status: StatusCompleted, Steps: 2, Loops: 1, LoopToProgress: &seconds}}}
	md = render(t, WriteMarkdown, Score(cases, []Run{{Case: "c", Pass: true, Outcome: Outcome{Status: StatusCompleted, Steps: 3}}}, 0))
	require.Contains(t, md, "Compared with the recording: **not worse than the recording**.")
	require.Contains(t, md, "| steps | 3 | 2 |\n| loops | 0 | 1 |\n| loop to progress | - | 4s |")
}

// The HTML report: the same content, a bar per side and metric in each
// case's SVG plot, everything from the scorecard escaped, no script.
func TestWriteHTML(t *testing.T) {
	page := render(t, WriteHTML, hostileScorecard(t))
	require.NotContains(t, page, "<script")
	require.NotContains(t, page, "<b>")
	for _, want := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt;|x",
		"output &lt;b&gt;bold&lt;/b&gt; is not the expected",
		`<section class="case lost"`,
		`<section class="case gained"`,
		`class="verdict failed"`,
		"<th>loops</th><th>loop to progress</th><th>cost</th>",
		"<tr><th>loop to progress</th><td>-</td>",
		// The lost case's candidate loops (3) are the suite's most: a full bar.
		`<rect class="bar candidate" data-metric="loops" x="182.0" y="18.0" width="40.0" height="104.0">`,
	} {
		require.Contains(t, page, want)
	}
	require.Equal(t, 4, strings.Count(page, `<tr class="case-row"`))
	require.Equal(t, 4, strings.Count(page, "<svg "))
	// three cases beside a baseline (6 bars), the new one alone (3).
	require.Equal(t, 3*6+3, strings.Count(page, `<rect class="bar `))
	require.Equal(t, 9, strings.Count(page, `<rect class="bar baseline"`))
}

// WriteReport picks the format by the extension.
func TestWriteReport(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"r.md", "r.html"} {
		p := filepath.Join(dir, name)
		require.NoError(t, WriteReport(p, reportScorecard(t)))
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, name == "r.html", strings.HasPrefix(string(b), "<!DOCTYPE html>"), name)
	}
	require.ErrorContains(t, WriteReport(filepath.Join(dir, "r.txt"), reportScorecard(t)), "r.txt")
	require.ErrorContains(t, WriteReport(filepath.Join(dir, "no", "r.md"), reportScorecard(t)), "report "+filepath.Join(dir, "no", "r.md"))
}
