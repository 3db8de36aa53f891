package eval

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func judgeCase() *Case {
	return &Case{Name: "c", Task: "Summarise the booking.", Input: map[string]any{"id": 7},
		Expect: &Expect{Match: MatchJudge, Judge: "grader", Output: map[string]any{"flight": "F1"}}}
}

// A judge case reads with its judge; a judge alone means match judge.
func TestJudgeCaseReads(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(writeFile(t, dir, "c.yaml", "agent: a\ntask: x\nexpect: {judge: grader}\ntools: []\n"))
	require.NoError(t, err)
	require.Equal(t, &Expect{Match: MatchJudge, Judge: "grader"}, c.Expect)
	path, err := Write(t.TempDir(), c)
	require.NoError(t, err)
	again, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, c.Expect, again.Expect)
	require.Equal(t, "c.yaml", filepath.Base(path))
}

// The judge's task holds the case's task, input and reference answer,
// and the output judged, as JSON.
func TestJudgeTask(t *testing.T) {
	c := judgeCase()
	task := JudgeTask(c, json.RawMessage(`{"flight":"F2","note":"changed"}`))
	require.Contains(t, task, "The task:\nSummarise the booking.\n")
	require.Contains(t, task, "Its input (JSON):\n{\n  \"id\": 7\n}")
	require.Contains(t, task, "A reference answer (JSON; a good output agrees with it, in any wording):\n{\n  \"flight\": \"F1\"\n}")
	require.Contains(t, task, "The agent's output (JSON):\n{\n  \"flight\": \"F2\",\n  \"note\": \"changed\"\n}")

	c.Input, c.Expect.Output = nil, nil
	task = JudgeTask(c, "done")
	require.NotContains(t, task, "Its input")
	require.NotContains(t, task, "reference answer")
	require.Contains(t, task, "The agent's output (JSON):\n\"done\"")
}

// A judge run's output is its verdict; a run that did not complete, or
// gave something else, gives none, and says why.
func TestJudgementOf(t *testing.T) {
	completed := func(out string) Outcome {
		return Outcome{Status: StatusCompleted, Output: json.RawMessage(out)}
	}
	for _, tc := range []struct {
		name    string
		o       Outcome
		reason  string
		verdict *Verdict
		err     string
	}{
		{"pass", completed(`{"pass":true,"why":"it answers"}`), "", &Verdict{Pass: true, Why: "it answers"}, ""},
		{"fail", completed(`{"pass":false,"why":"wrong flight"}`), "", &Verdict{Why: "wrong flight"}, ""},
		{"stopped", Outcome{Status: "stopped"}, "max_steps", nil, "status stopped: max_steps"},
		{"failed without a reason", Outcome{Status: "failed"}, "", nil, "status failed"},
		{"not a verdict", completed(`{"pass":"yes"}`), "", nil, `output {"pass":"yes"} is not a verdict {pass, why}`},
		{"another field", completed(`{"pass":true,"why":"w","score":3}`), "", nil, `output {"pass":true,"score":3,"why":"w"} is not a verdict {pass, why}`},
		{"not an object", completed(`true`), "", nil, `output true is not a verdict {pass, why}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := JudgementOf("eval-judge-c-1-s", tc.o, tc.reason)
			require.Equal(t, &Judgement{Run: "eval-judge-c-1-s", Verdict: tc.verdict, Error: tc.err}, j)
		})
	}
}

// The judge is asked only about a run nothing else failed.
func TestWantsJudge(t *testing.T) {
	done := Outcome{Status: StatusCompleted}
	require.True(t, WantsJudge(judgeCase(), done, 0))
	require.False(t, WantsJudge(judgeCase(), done, 1), "diverged")
	require.False(t, WantsJudge(judgeCase(), Outcome{Status: "stopped"}, 0), "stopped")
	require.False(t, WantsJudge(&Case{Expect: &Expect{Match: MatchSubset}}, done, 0), "not a judge case")
	require.False(t, WantsJudge(&Case{}, done, 0), "no expect")
}

// A judge case's run passes by its judge's verdict.
func TestJudgeByVerdict(t *testing.T) {
	done := Outcome{Status: StatusCompleted, Output: json.RawMessage(`{"flight":"F2"}`)}
	for _, tc := range []struct {
		name string
		run  Run
		pass bool
		why  string
	}{
		{"passed by the judge", Run{Outcome: done, Judgement: &Judgement{Run: "j", Verdict: &Verdict{Pass: true, Why: "fine"}}}, true, ""},
		{"failed by the judge", Run{Outcome: done, Judgement: &Judgement{Run: "j", Verdict: &Verdict{Why: "F2 is not the booked flight"}}}, false, "judge grader: F2 is not the booked flight"},
		{"the judge run failed", Run{Outcome: done, Judgement: &Judgement{Run: "eval-judge-c-1-s", Error: "status failed: boom"}}, false, "judge grader: run eval-judge-c-1-s gave no verdict: status failed: boom"},
		{"no judge run", Run{Outcome: done}, false, "judge grader: no judge run"},
		{"stopped before the judge", Run{Outcome: Outcome{Status: "stopped"}, Reason: "max_steps"}, false, "status stopped: max_steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run
			Judge(judgeCase(), &r)
			require.Equal(t, tc.pass, r.Pass)
			require.Equal(t, tc.why, r.Why)
		})
	}
}

// The recording of a judge case is judged too: a recorded output the
// judge fails is no pass lost.
func TestScoreJudgesTheRecording(t *testing.T) {
	c := judgeCase()
	c.Recorded = &Outcome{Status: StatusCompleted, Output: "F2"}
	failed := Run{Case: "c", Outcome: Outcome{Status: StatusCompleted}, Judgement: &Judgement{Run: "j", Verdict: &Verdict{Why: "wrong"}}}
	Judge(c, &failed)

	c.RecordedJudgement = &Judgement{Run: "r", Verdict: &Verdict{Why: "wrong then too"}}
	cs := Score([]*Case{c}, []Run{failed}, 0).Cases[0]
	require.Equal(t, &RecordedScore{Why: "judge grader: wrong then too", Judgement: c.RecordedJudgement}, cs.Recorded)
	require.Equal(t, ChangeSame, cs.Change)

	c.RecordedJudgement = &Judgement{Run: "r", Verdict: &Verdict{Pass: true}}
	cs = Score([]*Case{c}, []Run{failed}, 0).Cases[0]
	require.True(t, cs.Recorded.Pass)
	require.Equal(t, ChangeLost, cs.Change)
	require.Equal(t, []string{"judge grader: wrong"}, cs.Why)
}
