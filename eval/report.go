package eval

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The kinds of report --report writes, by the file's extension.
const (
	ReportMarkdown = ".md"
	ReportHTML     = ".html"
)

// ReportKind is the kind of report path asks for, by its extension; any
// other extension is refused, so a typo is caught before the eval runs.
func ReportKind(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ReportMarkdown, ReportHTML:
		return ext, nil
	default:
		return "", fmt.Errorf("report %s: the extension says the format, .md (Markdown) or .html, not %q", path, ext)
	}
}

// WriteReport writes sc to path as the report its extension says.
func WriteReport(path string, sc Scorecard) error {
	kind, err := ReportKind(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	write := WriteMarkdown
	if kind == ReportHTML {
		write = WriteHTML
	}
	if err := write(&buf, sc); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
}

// report is a scorecard as both report formats show it: the suite, then
// each case beside its baseline (the --baseline scorecard's case, else the
// recording).
type report struct {
	Against string
	Suite   []figure // the suite's figures, one per line
	Verdict string
	Failed  bool
	Cases   []reportCase
}

// reportCase is one case of a report.
type reportCase struct {
	Name   string
	Change string
	Notes  []string
	Why    []string
	Lost   bool
	Gained bool
	// Figures are the candidate's beside the baseline's; Base is false
	// when the case has none.
	Figures []figure
	Base    bool
	Plot    plot
}

// figure is one line of a report's table: its name, the candidate's
// value and the baseline's.
type figure struct {
	Name, Now, Then string
}

// side is one column of a case: the candidate's runs or its baseline's.
type side struct {
	Runs, Passed, Diverged int
	PassK                  bool
	Figures                Figures
}

// baseSide is c's baseline: the --baseline case, else the recorded run
// (one run, passing or not), else none.
func baseSide(c CaseScore, fromBaseline bool) (side, bool) {
	if b := c.Baseline; b != nil {
		return side{Runs: b.Runs, Passed: b.Passed, Diverged: b.Diverged, PassK: b.PassK, Figures: b.Mean}, true
	}
	if r := c.Recorded; r != nil && !fromBaseline {
		passed := 0
		if r.Pass {
			passed = 1
		}
		return side{Runs: 1, Passed: passed, PassK: r.Pass, Figures: r.Figures}, true
	}
	return side{}, false
}

// verdict is the suite's verdict as the table and the reports say it:
// not worse than what it is compared with, or worse by how much.
func (sc Scorecard) verdict() string {
	s := sc.Suite
	if s.Failed {
		return fmt.Sprintf("WORSE than %s: %d of %d case(s) lost their pass (allowed: %s%% of the cases)",
			sc.Against(), s.Worse, s.Cases, num(s.Threshold*100))
	}
	return "not worse than " + sc.Against()
}

// changeWithNotes is a case's change with what moved: "lost; steps up 2→6".
func changeWithNotes(change string, notes []string) string {
	if len(notes) == 0 {
		return change
	}
	return change + "; " + strings.Join(notes, ", ")
}

// newReport lays sc out for the renderers.
func newReport(sc Scorecard) report {
	s := sc.Suite
	r := report{
		Against: sc.Against(),
		Failed:  s.Failed,
		Verdict: sc.verdict(),
		Suite: []figure{
			{Name: "cases passing pass^k", Now: fmt.Sprintf("%d/%d", s.PassK, s.Cases)},
			{Name: "runs passed", Now: fmt.Sprintf("%d/%d", s.Passed, s.Runs)},
			{Name: "worse (a pass lost)", Now: fmt.Sprint(s.Worse)},
			{Name: "better (a pass gained)", Now: fmt.Sprint(s.Better)},
			{Name: "diverged calls", Now: fmt.Sprint(s.Diverged)},
			{Name: "tokens", Now: num(s.Total.InputTokens + s.Total.OutputTokens)},
			{Name: "cost", Now: money(s.Total.Cost)},
			{Name: "loop to progress", Now: progressText(s.Total)},
		},
	}
	scale := newScale(sc)
	for _, c := range sc.Cases {
		now := side{Runs: c.Runs, Passed: c.Passed, Diverged: c.Diverged, PassK: c.PassK, Figures: c.Mean}
		then, ok := baseSide(c, s.Baseline != "")
		rc := reportCase{Name: c.Case, Change: c.Change, Notes: c.Notes, Why: c.Why, Base: ok,
			Lost: c.Change == ChangeLost, Gained: c.Change == ChangeGained}
		for _, f := range []struct {
			name string
			val  func(side) string
		}{
			{"pass", func(s side) string { return fmt.Sprintf("%d/%d", s.Passed, s.Runs) }},
			{"pass^k", func(s side) string { return yesNo(s.PassK) }},
			{"steps", func(s side) string { return num(s.Figures.Steps) }},
			{"loops", func(s side) string { return num(s.Figures.Loops) }},
			{"loop to progress", func(s side) string { return progressText(s.Figures) }},
			{"cost", func(s side) string { return money(s.Figures.Cost) }},
			{"diverged", func(s side) string { return fmt.Sprint(s.Diverged) }},
		} {
			fig := figure{Name: f.name, Now: f.val(now), Then: "-"}
			if ok {
				fig.Then = f.val(then)
			}
			rc.Figures = append(rc.Figures, fig)
		}
		rc.Plot = scale.plot(now, then, ok)
		r.Cases = append(r.Cases, rc)
	}
	return r
}
