package testsuite

import (
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/eval"
)

// evalReportScorecard is a candidate's eval against a baseline of four
// cases: booking kept its pass with fewer steps, refund lost it (looping),
// search gained it, and one case is named like markup.
func evalReportScorecard() eval.Scorecard {
	cases := []*eval.Case{{Name: "booking"}, {Name: "refund"}, {Name: "search"}, {Name: "<script>alert(1)</script>"}}
	run := func(name string, pass bool, steps, loops int, cost float64) eval.Run {
		r := eval.Run{Case: name, Pass: pass, Outcome: eval.Outcome{Status: eval.StatusCompleted, Steps: steps, Loops: loops, Cost: cost}}
		if !pass {
			r.Why = "status stopped: max_steps"
		}
		return r
	}
	sc := eval.Score(cases, []eval.Run{
		run("booking", true, 3, 0, 0.012), run("booking", true, 3, 0, 0.010),
		run("refund", true, 6, 1, 0.030), run("refund", false, 12, 4, 0.071),
		run("search", true, 2, 0, 0.006), run("search", true, 2, 0, 0.008),
		run("<script>alert(1)</script>", true, 1, 0, 0.002), run("<script>alert(1)</script>", true, 1, 0, 0.002),
	}, 0)
	base := eval.Scorecard{Cases: []eval.CaseScore{
		{Case: "booking", Runs: 2, Passed: 2, PassK: true, Mean: eval.Figures{Steps: 4, Cost: 0.015}},
		{Case: "refund", Runs: 2, Passed: 2, PassK: true, Mean: eval.Figures{Steps: 5, Loops: 1, Cost: 0.028}},
		{Case: "search", Runs: 2, Passed: 1, Mean: eval.Figures{Steps: 5, Loops: 2, Cost: 0.02}},
		{Case: "<script>alert(1)</script>", Runs: 2, Passed: 2, PassK: true, Mean: eval.Figures{Steps: 1, Cost: 0.002}},
	}}
	return eval.Compare(sc, base, "release.json")
}

// The HTML report of `eval run --report` in a real browser, opened from
// the file as a CI artifact would be: a row per case, a plot per case
// with a baseline and a candidate bar per metric, the lost and gained
// cases marked, and the case named like markup shown as text.
func TestBrowserEvalReport(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "eval.html")
	require.NoError(t, eval.WriteReport(path, evalReportScorecard()))
	b := newBrowser(t)
	b.do("open the report", chromedp.Navigate("file://"+path))
	b.do("see the cases", chromedp.WaitVisible(chromedp.CSS("table#cases")))
	require.Equal(t, 4, b.count("tr.case-row"))
	require.Equal(t, 4, b.count("svg.plot"))
	require.Equal(t, 12, b.count("rect.bar.baseline"))
	require.Equal(t, 12, b.count("rect.bar.candidate"))
	require.Equal(t, 0, b.count("script"), "no script in the page, and a case's name is not one")
	b.waitText("section.case.lost h2", "refund")
	b.waitText("section.case.gained h2", "search")
	require.Contains(t, b.text("p.verdict.failed"), "WORSE than the baseline release.json: 1 of 4 case(s) lost their pass")
	require.Contains(t, b.text(`tr.case-row:last-child td`), "<script>alert(1)</script>")
	// refund's candidate loops (4) are the suite's most: a full bar, taller
	// than its baseline's.
	heights := get(b, "read refund's loop bars", chromedp.Evaluate[[]float64](
		`[...document.querySelectorAll('section.case.lost rect[data-metric="loops"]')].map(r => r.getBBox().height)`))
	require.Len(t, heights, 2)
	require.Greater(t, heights[1], heights[0], "the candidate's loops bar is taller than the baseline's")
	b.screenshot("eval-report")
}
