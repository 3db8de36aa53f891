package eval

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The terminal table: a line per case with its figures beside the
// recording's and its change, why each failing case failed, and the
// suite's line with its verdict.
func TestWriteTable(t *testing.T) {
	cases := []*Case{
		{Name: "kept", Recorded: &Outcome{Status: StatusCompleted, Steps: 2}},
		{Name: "lost", Recorded: &Outcome{Status: StatusCompleted, Steps: 2}},
	}
	seconds := 2.5
	runs := []Run{
		{Case: "kept", Pass: true, Outcome: Outcome{Status: StatusCompleted, Steps: 2, ModelRequests: 2, InputTokens: 100, OutputTokens: 20}},
		{Case: "lost", Pass: false, Why: "diverged: 1 tool call(s) not in the recording", Outcome: Outcome{Status: StatusCompleted, Steps: 6, Loops: 2, LoopToProgress: &seconds, LoopsWithoutProgress: 1}, Diverged: []string{"search {}"}},
	}
	var b strings.Builder
	require.NoError(t, WriteTable(&b, Score(cases, runs, 0)))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 5)
	require.Equal(t, []string{"CASE", "PASS", "PASS^K", "STEPS", "REQUESTS", "TOKENS", "COST", "LOOPS", "TO-PROGRESS", "RUNGS", "REPAIRS", "DIVERGED", "RECORDED", "CHANGE"}, strings.Fields(lines[0]))
	require.Regexp(t, `^kept\s+1/1\s+yes\s+2\s+2\s+120\s+0\s+0\s+-\s+0\s+0\s+0\s+pass, 2 steps\s+same$`, lines[1])
	require.Regexp(t, `^lost\s+0/1\s+no\s+6\s+0\s+0\s+0\s+2\s+2.5s, 1 stuck\s+0\s+0\s+1\s+pass, 2 steps\s+lost; steps up 2→6, loops up 0→2, loops without progress up 0→1$`, lines[2])
	require.Equal(t, "  lost: diverged: 1 tool call(s) not in the recording", lines[3])
	require.Contains(t, lines[4], "suite: pass^k 1/2 cases, runs passed 1/2, 1 worse, 0 better, 1 diverged call(s)")
	require.Contains(t, lines[4], "loop to progress 2.5s, 1 stuck")
	require.Contains(t, lines[4], "WORSE than the recording: 1 of 2 case(s) lost their pass")
}

func TestProgressText(t *testing.T) {
	seconds := 2.5
	for _, tc := range []struct {
		figures Figures
		want    string
	}{
		{Figures{}, "-"},
		{Figures{Loops: 1, LoopToProgress: &seconds}, "2.5s"},
		{Figures{Loops: 2, LoopToProgress: &seconds, LoopsWithoutProgress: 0.5}, "2.5s, 0.5 stuck"},
		{Figures{Loops: 1, LoopsWithoutProgress: 1}, "1 stuck"},
	} {
		require.Equal(t, tc.want, progressText(tc.figures))
	}
}
