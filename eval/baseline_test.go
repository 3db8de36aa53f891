package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// reportScorecard is a candidate's scorecard over four cases: kept
// passes, lost fails, gained passes, and new is not in baseline().
func reportScorecard(t *testing.T) Scorecard {
	t.Helper()
	cases := []*Case{{Name: "kept"}, {Name: "lost"}, {Name: "gained"}, {Name: "new"}}
	run := func(name string, pass bool, steps, loops int, cost float64) Run {
		return Run{Case: name, Pass: pass, Why: map[bool]string{false: "status stopped: max_steps"}[pass],
			Outcome: Outcome{Status: StatusCompleted, Steps: steps, Loops: loops, Cost: cost}}
	}
	return Score(cases, []Run{run("kept", true, 2, 0, 0.01), run("lost", false, 9, 3, 0.05), run("gained", true, 3, 0, 0.02), run("new", true, 1, 0, 0)}, 0)
}

// baseline is the earlier eval: kept and lost passed, gained did not.
func baseline() Scorecard {
	return Scorecard{Cases: []CaseScore{
		{Case: "kept", Runs: 1, Passed: 1, PassK: true, Mean: Figures{Steps: 2, Cost: 0.02}},
		{Case: "lost", Runs: 1, Passed: 1, PassK: true, Mean: Figures{Steps: 4, Loops: 1, Cost: 0.03}},
		{Case: "gained", Runs: 2, Passed: 1, Mean: Figures{Steps: 5, Loops: 2, Cost: 0.02}},
		{Case: "gone", Runs: 1, Passed: 1, PassK: true},
	}}
}

func TestCompare(t *testing.T) {
	sc := Compare(reportScorecard(t), baseline(), "base.json")
	for i, tc := range []struct {
		name, change string
		notes        []string
		base         bool
	}{
		{"kept", ChangeSame, []string{"cost down 0.02→0.01"}, true},
		{"lost", ChangeLost, []string{"steps up 4→9", "loops up 1→3", "cost up 0.03→0.05"}, true},
		{"gained", ChangeGained, []string{"steps down 5→3", "loops down 2→0"}, true},
		{"new", ChangeNotInBaseline, nil, false},
	} {
		c := sc.Cases[i]
		require.Equal(t, tc.name, c.Case)
		require.Equal(t, tc.change, c.Change, tc.name)
		require.Equal(t, tc.notes, c.Notes, tc.name)
		require.Equal(t, tc.base, c.Baseline != nil, tc.name)
	}
	s := sc.Suite
	require.Equal(t, "base.json", s.Baseline)
	require.Equal(t, 1, s.Worse)
	require.Equal(t, 1, s.Better)
	require.Equal(t, 0.25, s.WorseShare)
	require.True(t, s.Failed, "a case lost at --threshold 0")
	require.Equal(t, "the baseline base.json", sc.Against())

	lenient := reportScorecard(t)
	lenient.Suite.Threshold = 0.25
	require.False(t, Compare(lenient, baseline(), "base.json").Suite.Failed, "a quarter worse is allowed at --threshold 0.25")
}

func TestLoadBaseline(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	good, err := json.Marshal(baseline())
	require.NoError(t, err)
	suite := []*Case{{Name: "kept"}, {Name: "new"}}
	for _, tc := range []struct {
		name, file, err string
	}{
		{"a scorecard", write("good.json", string(good)), ""},
		{"not JSON", write("bad.json", "suite: {}"), "bad.json is not a scorecard"},
		{"no case of the suite", write("other.json", `{"cases":[{"case":"x"}]}`), "other.json names no case of the suite (it names: x; the suite: kept, new)"},
		{"no cases at all", write("empty.json", `{}`), "empty.json names no case of the suite (it names: (none)"},
		{"missing", filepath.Join(dir, "none.json"), "none.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := LoadBaseline(tc.file, suite)
			if tc.err == "" {
				require.NoError(t, err)
				require.Len(t, sc.Cases, 4)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}
