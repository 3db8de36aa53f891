package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// ChangeNotInBaseline is the change of a case the baseline does not name.
const ChangeNotInBaseline = "not in baseline"

// BaselineScore is a case's score in an earlier eval (--baseline): what
// the candidate is compared with instead of the recording.
type BaselineScore struct {
	Runs     int     `json:"runs"`
	Passed   int     `json:"passed"`
	PassK    bool    `json:"pass_k"`
	Mean     Figures `json:"mean"`
	Diverged int     `json:"diverged"`
}

// LoadBaseline reads a baseline: the scorecard JSON `eval run --json`
// printed for an earlier eval. One that is not such JSON, or names none
// of cases, is refused naming path: comparing with it would call every
// case new and pass any candidate.
func LoadBaseline(path string, cases []*Case) (Scorecard, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Scorecard{}, fmt.Errorf("baseline %s: %w", path, err)
	}
	var sc Scorecard
	if err := json.Unmarshal(b, &sc); err != nil {
		return Scorecard{}, fmt.Errorf("baseline %s is not a scorecard (the JSON `unstuck eval run --json` prints): %v", path, err)
	}
	var named, suite []string
	for _, c := range sc.Cases {
		named = append(named, c.Case)
	}
	for _, c := range cases {
		suite = append(suite, c.Name)
		if slices.Contains(named, c.Name) {
			return sc, nil
		}
	}
	return Scorecard{}, fmt.Errorf("baseline %s names no case of the suite (it names: %s; the suite: %s)",
		path, listOrNone(named), listOrNone(suite))
}

// Compare scores sc against base instead of the recording: each case by
// name, a pass^k lost or gained, steps, loops and cost up or down; the
// suite's worse, better and verdict (at sc's threshold) follow. file names
// the baseline in the scorecard.
func Compare(sc Scorecard, base Scorecard, file string) Scorecard {
	then := map[string]CaseScore{}
	for _, c := range base.Cases {
		then[c.Case] = c
	}
	s := &sc.Suite
	s.Baseline = file
	s.Worse, s.Better = 0, 0
	cases := make([]CaseScore, len(sc.Cases))
	for i, cs := range sc.Cases {
		b, ok := then[cs.Case]
		if !ok {
			cs.Baseline, cs.Change, cs.Notes = nil, ChangeNotInBaseline, nil
			cases[i] = cs
			continue
		}
		cs.Baseline = &BaselineScore{Runs: b.Runs, Passed: b.Passed, PassK: b.PassK, Mean: b.Mean, Diverged: b.Diverged}
		cs.Change = change(b.PassK, cs.PassK)
		cs.Notes = append(moved(b.Mean, cs.Mean), costMoved(b.Mean.Cost, cs.Mean.Cost)...)
		switch cs.Change {
		case ChangeLost:
			s.Worse++
		case ChangeGained:
			s.Better++
		}
		cases[i] = cs
	}
	sc.Cases = cases
	s.settle()
	return sc
}

// costMoved says whether the mean cost went up or down from then to now.
func costMoved(then, now float64) []string {
	switch {
	case now > then:
		return []string{fmt.Sprintf("cost up %s→%s", money(then), money(now))}
	case now < then:
		return []string{fmt.Sprintf("cost down %s→%s", money(then), money(now))}
	}
	return nil
}

// money is a cost to four decimals, as short as it reads: an eval's runs
// cost cents, which two decimals would round together.
func money(f float64) string { return short(f, 4) }

// Against is what sc compares with, as a verdict names it.
func (sc Scorecard) Against() string {
	if sc.Suite.Baseline != "" {
		return "the baseline " + sc.Suite.Baseline
	}
	return "the recording"
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
