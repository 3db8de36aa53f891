package testsuite

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// graderAgent is the judge of the judge cases: an agent of the candidate
// config without tools, its model the scripted model under "grader".
const graderAgent = "  - { name: grader, instructions: Judge answers., model: { name: grader } }\n"

// Two cases judged by grader: a hotel the judge passes against the
// reference answer, and a price in USD it fails, whose recorded output
// (in euros) it passed.
const (
	judgedHotelCase = `
agent: finder
task: Find a hotel in NYC.
expect: { match: judge, judge: grader, output: { hotel: H1 } }
tools:
  - { tool: search, args: { q: nyc }, result: { hotel: H1 } }
recorded: { status: completed, output: { hotel: H1 }, steps: 2, model_requests: 2, tool_calls: 1, input_tokens: 0, output_tokens: 0, loops: 0, repairs: 0 }
`
	judgedPriceCase = `
agent: finder
task: Look up the price of item 7 in euros.
expect: { match: judge, judge: grader }
tools:
  - { tool: lookup, args: { id: 7 }, result: { price: 120, currency: USD } }
recorded: { status: completed, output: { price: 110, currency: EUR }, steps: 2, model_requests: 2, tool_calls: 1, input_tokens: 0, output_tokens: 0, loops: 0, repairs: 0 }
`
)

// grader is the scripted model's script for the judge (a test double):
// a price in USD fails; a hotel passes when it is the reference answer's.
func grader(req openaiRequest) scriptedmodel.Turn {
	task := scriptedmodel.Task(req)
	_, output, _ := strings.Cut(task, "The agent's output (JSON):")
	verdict := func(pass bool, why string) scriptedmodel.Turn {
		return scriptedmodel.CallTurn("final_output", map[string]any{"pass": pass, "why": why})
	}
	switch {
	case strings.Contains(output, `"currency": "USD"`):
		return verdict(false, "the price is in USD; the task asks for euros")
	case strings.Contains(output, `"currency": "EUR"`):
		return verdict(true, "a price in euros")
	case strings.Contains(task, "A reference answer") && strings.Contains(task, `"hotel": "H1"`) && strings.Contains(output, `"hotel": "H1"`):
		return verdict(true, "H1 is the reference answer's hotel")
	}
	return verdict(false, "nothing to judge by")
}

// A judge case's runs and its recording are judged by the judge agent
// of the candidate config in real runs of their own: the hotel passes,
// the USD price fails with the judge's reason and, its recording judged
// a pass, is a pass lost; the judge's model request is not the case's.
func TestEvalRunJudge(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 500, map[string]string{"error": "an eval must not call a tool"})
	})
	model := startModel(t, map[string]scriptedmodel.Script{"judged": finder(false), "grader": grader}, "")
	dir := t.TempDir()
	cases := writeEvalCases(t, dir, map[string]string{"hotel": judgedHotelCase, "price": judgedPriceCase})
	cfg := writeEvalConfig(t, dir, "judged", model.URL(), tools.URL, graderAgent)

	sc, code, stderr := evalScorecard(t, cases, cfg)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "the candidate is worse than the recording: 1 of 2 case(s) lost their pass")
	byCase := scoresByCase(sc)
	hotel, price := byCase["hotel"], byCase["price"]
	require.True(t, hotel.PassK, "%v\n%s", hotel.Why, stderr)
	require.Equal(t, eval.ChangeSame, hotel.Change)
	require.Equal(t, 2.0, hotel.Mean.ModelRequests, "the judge's request is not the case's")
	require.Equal(t, 0, price.Passed)
	require.Equal(t, []string{"judge grader: the price is in USD; the task asks for euros"}, price.Why)
	require.True(t, price.Recorded.Pass, "the recorded price in euros, judged: %s", price.Recorded.Why)
	require.Equal(t, eval.ChangeLost, price.Change)

	var judgeRuns []string
	for _, r := range sc.Runs {
		require.NotNil(t, r.Judgement, r.Case)
		require.NotNil(t, r.Judgement.Verdict, "%s: %s", r.Case, r.Judgement.Error)
		require.Equal(t, r.WorkflowID+"-judge", r.Judgement.Run)
		require.Contains(t, stderr, r.Case+" #1 ("+r.WorkflowID+", judged by grader ("+r.Judgement.Run+"))")
		judgeRuns = append(judgeRuns, r.Judgement.Run)
	}
	for _, c := range []eval.CaseScore{hotel, price} {
		require.NotNil(t, c.Recorded.Judgement, c.Case)
		require.True(t, strings.HasPrefix(c.Recorded.Judgement.Run, "eval-"+c.Case+"-recorded-"), c.Recorded.Judgement.Run)
		require.True(t, strings.HasSuffix(c.Recorded.Judgement.Run, "-judge"), c.Recorded.Judgement.Run)
		require.Contains(t, stderr, c.Case+"'s recording, judged by grader ("+c.Recorded.Judgement.Run+"): pass")
		judgeRuns = append(judgeRuns, c.Recorded.Judgement.Run)
	}
	for _, id := range judgeRuns {
		desc, err := serverClient.DescribeWorkflowExecution(context.Background(), id, "")
		require.NoError(t, err, id)
		info := desc.GetWorkflowExecutionInfo()
		require.Equal(t, workflows.WorkflowName, info.GetType().GetName(), id)
		require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, info.GetStatus(), id)
	}
	require.Empty(t, tools.requests("/search"), "every call answered from the recording")
}
