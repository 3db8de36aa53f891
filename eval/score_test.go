package eval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJudge(t *testing.T) {
	c := &Case{Name: "c", Expect: &Expect{Output: map[string]any{"ok": true}, Match: MatchExact}}
	for _, tc := range []struct {
		name string
		run  Run
		pass bool
		why  string
	}{
		{"completed with the output", Run{Outcome: Outcome{Status: StatusCompleted, Output: json.RawMessage(`{"ok":true}`)}}, true, ""},
		{"stopped", Run{Outcome: Outcome{Status: "stopped"}, Reason: "max_steps"}, false, "status stopped: max_steps"},
		{"diverged", Run{Outcome: Outcome{Status: StatusCompleted, Output: json.RawMessage(`{"ok":true}`)}, Diverged: []string{"t {}"}}, false, "diverged: the call t {} is not in the recording"},
		{"diverged, then failed for it", Run{Outcome: Outcome{Status: "failed"}, Reason: "output is not JSON", Diverged: []string{"t {\"a\":1}", "u {}"}}, false,
			"diverged: the call t {\"a\":1} is not in the recording (and 1 more call(s))"},
		{"live calls pass", Run{Outcome: Outcome{Status: StatusCompleted, Output: json.RawMessage(`{"ok":true}`)}, Live: []string{"t {}"}}, true, ""},
		{"another output", Run{Outcome: Outcome{Status: StatusCompleted, Output: json.RawMessage(`{"ok":false}`)}}, false, `output {"ok":false} is not the expected {"ok":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run
			Judge(c, &r)
			require.Equal(t, tc.pass, r.Pass)
			require.Equal(t, tc.why, r.Why)
		})
	}
}

func TestScore(t *testing.T) {
	recorded := &Outcome{Status: StatusCompleted, Steps: 2, Loops: 1}
	cases := []*Case{
		{Name: "kept", Recorded: recorded},
		{Name: "lost", Recorded: recorded},
		{Name: "gained", Recorded: &Outcome{Status: "stopped", Steps: 5}},
		{Name: "new"},
	}
	run := func(name string, pass bool, steps int) Run {
		return Run{Case: name, Pass: pass, Why: map[bool]string{false: "status stopped"}[pass],
			Outcome: Outcome{Steps: steps, ModelRequests: 2, InputTokens: 10, OutputTokens: 5, Cost: 0.5, Rungs: []string{"retry"}}}
	}
	runs := []Run{
		run("kept", true, 2), run("kept", true, 4),
		run("lost", true, 2), run("lost", false, 2),
		run("gained", true, 3), run("gained", true, 3),
		run("new", false, 1), run("new", false, 1),
	}
	sc := Score(cases, runs, 0)
	byName := map[string]CaseScore{}
	for _, c := range sc.Cases {
		byName[c.Case] = c
	}
	for _, tc := range []struct {
		name   string
		passed int
		passK  bool
		change string
		notes  []string
	}{
		{"kept", 2, true, ChangeSame, []string{"steps up 2→3", "loops down 1→0"}},
		{"lost", 1, false, ChangeLost, []string{"loops down 1→0"}},
		{"gained", 2, true, ChangeGained, []string{"steps down 5→3"}},
		{"new", 0, false, ChangeNone, nil},
	} {
		c := byName[tc.name]
		require.Equal(t, tc.passed, c.Passed, tc.name)
		require.Equal(t, tc.passK, c.PassK, tc.name)
		require.Equal(t, tc.change, c.Change, tc.name)
		require.Equal(t, tc.notes, c.Notes, tc.name)
	}
	require.Equal(t, []string{"status stopped"}, byName["new"].Why)
	require.Equal(t, 1.0, byName["kept"].Mean.Rungs)
	s := sc.Suite
	require.Equal(t, Suite{Cases: 4, PassK: 2, Runs: 8, Passed: 5, Worse: 1, Better: 1, WorseShare: 0.25, Threshold: 0, Failed: true,
		Total: Figures{Steps: 18, ModelRequests: 16, InputTokens: 80, OutputTokens: 40, Cost: 4, Rungs: 8}}, s)
	require.False(t, Score(cases, runs, 0.25).Suite.Failed, "a quarter worse is allowed at --threshold 0.25")
}

// The time from a loop to progress is a mean over the runs that have one,
// per case and for the suite; loops without progress a mean over all runs.
func TestScoreLoopToProgress(t *testing.T) {
	s := func(f float64) *float64 { return &f }
	cases := []*Case{{Name: "a", Recorded: &Outcome{Status: StatusCompleted}}, {Name: "b"}}
	runs := []Run{
		{Case: "a", Outcome: Outcome{Loops: 1, LoopToProgress: s(2)}},
		{Case: "a", Outcome: Outcome{Loops: 1, LoopsWithoutProgress: 1}},
		{Case: "b", Outcome: Outcome{Loops: 2, LoopToProgress: s(8)}},
		{Case: "b"},
	}
	sc := Score(cases, runs, 0)
	require.Equal(t, s(2), sc.Cases[0].Mean.LoopToProgress, "the stuck run is left out, not counted as 0")
	require.Equal(t, 0.5, sc.Cases[0].Mean.LoopsWithoutProgress)
	require.Equal(t, []string{"loops up 0→1", "loops without progress up 0→0.5"}, sc.Cases[0].Notes)
	require.Equal(t, s(8), sc.Cases[1].Mean.LoopToProgress)
	require.Equal(t, s(5), sc.Suite.Total.LoopToProgress)
	require.Equal(t, 1.0, sc.Suite.Total.LoopsWithoutProgress)

	none, err := json.Marshal(Score(cases, nil, 0).Suite.Total)
	require.NoError(t, err)
	require.NotContains(t, string(none), "loop_to_progress", "absent, not 0 seconds, when no loop gave way to progress")
}
