package testsuite

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// evalConfig is a candidate config: the agent finder, its model the
// scripted model server (a test double) under {{NAME}}, its tools on the
// loopback tool server.
const evalConfig = `
model: { base_url: "{{MODEL}}", name: {{NAME}} }
tools:
  - { name: search, effect: read, http: { url: "{{TOOLS}}/search" }, parameters: { type: object } }
  - { name: lookup, effect: read, http: { url: "{{TOOLS}}/lookup" }, parameters: { type: object } }
agents:
  - { name: finder, instructions: Find things., tools: [search, lookup] }
`

// The suite: a search that failed once (transient) and then succeeded,
// and a lookup whose output is expected; both passed when recorded.
const (
	flakyCase = `
agent: finder
task: Find a hotel in NYC.
tools:
  - { tool: search, args: { q: nyc }, error: { class: transient, message: "tool search: HTTP 503" } }
  - { tool: search, args: { q: nyc }, result: { hotel: H1 } }
recorded: { status: completed, output: { hotel: H1 }, steps: 2, model_requests: 2, tool_calls: 1, input_tokens: 0, output_tokens: 0, loops: 0, repairs: 0 }
`
	expectedCase = `
agent: finder
task: Look up the price of item 7.
expect: { output: { price: 120 }, match: subset }
tools:
  - { tool: lookup, args: { id: 7 }, result: { price: 120, currency: USD } }
recorded: { status: completed, output: { price: 120, currency: USD }, steps: 2, model_requests: 2, tool_calls: 1, input_tokens: 0, output_tokens: 0, loops: 0, repairs: 0 }
`
)

// finder is the scripted model's script (a test double): one tool call,
// then the output from its result. diverging searches Boston instead,
// which the recording does not have.
func finder(diverging bool) scriptedmodel.Script {
	return func(req openaiRequest) scriptedmodel.Turn {
		hotel := strings.Contains(scriptedmodel.Task(req), "hotel")
		if scriptedmodel.AssistantTurns(req) == 0 {
			if !hotel {
				return scriptedmodel.CallTurn("lookup", map[string]any{"id": 7})
			}
			q := "nyc"
			if diverging {
				q = "boston"
			}
			return scriptedmodel.CallTurn("search", map[string]any{"q": q})
		}
		if hotel {
			return scriptedmodel.CallTurn("final_output", map[string]any{"hotel": "H1"})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"price": 120, "currency": "USD"})
	}
}

// `unstuck eval run` replays a suite as real runs with every tool answered
// from the recording (the retried search gets the recorded failure, then
// the success; no request reaches the tool server); a candidate calling a
// tool with arguments the recording lacks diverges, fails, and the eval
// exits 1, unless --unrecorded live makes that call (a read) for real.
func TestEvalRun(t *testing.T) {
	t.Parallel()
	// Only a live call (--unrecorded live) reaches the tool server.
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 200, map[string]string{"hotel": "H1"})
	})
	model := startModel(t, map[string]scriptedmodel.Script{"candidate": finder(false), "diverging": finder(true)}, "")
	dir := t.TempDir()
	cases := writeEvalCases(t, dir, map[string]string{"flaky": flakyCase, "expected": expectedCase})
	config := func(name string) string {
		return writeEvalConfig(t, dir, name, model.URL(), tools.URL, "")
	}
	unstuck := func(cfg string, args ...string) (string, int, string) {
		return unstuckEval(t, cases, cfg, args...)
	}
	evalRun := func(cfg string, args ...string) (eval.Scorecard, int, string) {
		return evalScorecard(t, cases, cfg, args...)
	}
	baseline := filepath.Join(dir, "baseline.json")

	stdout, code, stderr := unstuck(config("candidate"), "--repeat", "2")
	require.NoError(t, os.WriteFile(baseline, []byte(stdout), 0o644))
	var sc eval.Scorecard
	require.NoError(t, json.Unmarshal([]byte(stdout), &sc), "stdout: %s\nstderr: %s", stdout, stderr)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "eval: [4/4] ")
	require.Equal(t, eval.Suite{Cases: 2, PassK: 2, Runs: 4, Passed: 4, Total: sc.Suite.Total}, sc.Suite, stderr)
	for _, c := range sc.Cases {
		require.True(t, c.PassK, "%s: %v", c.Case, c.Why)
		require.Equal(t, 0, c.Diverged, c.Case)
		require.Equal(t, eval.ChangeSame, c.Change, c.Case)
		require.Equal(t, 2.0, c.Mean.Steps, c.Case)
	}
	require.Empty(t, tools.requests("/search"), "every call answered from the recording")
	require.Empty(t, tools.requests("/lookup"), "every call answered from the recording")

	boston := `search {"q":"boston"}`
	sc, code, stderr = evalRun(config("diverging"))
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "the candidate is worse than the recording: 1 of 2 case(s) lost their pass")
	byCase := scoresByCase(sc)
	require.False(t, byCase["flaky"].PassK)
	require.Equal(t, 1, byCase["flaky"].Diverged)
	require.Equal(t, eval.ChangeLost, byCase["flaky"].Change)
	require.True(t, byCase["expected"].PassK)
	flaky := runOf(t, sc, "flaky")
	require.Equal(t, []string{boston}, flaky.Diverged)
	require.Empty(t, flaky.Live)
	require.Empty(t, tools.requests("/search"), "the unrecorded call is not made")

	// Against the first eval's scorecard (--baseline) instead of the
	// recordings, with a report: the lost case fails the eval the same way.
	report := filepath.Join(dir, "eval.html")
	sc, code, stderr = evalRun(config("diverging"), "--baseline", baseline, "--report", report)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "the candidate is worse than the baseline "+baseline+": 1 of 2 case(s) lost their pass")
	require.Equal(t, baseline, sc.Suite.Baseline)
	for _, c := range sc.Cases {
		require.NotNil(t, c.Baseline, c.Case)
		require.Equal(t, 2, c.Baseline.Runs, c.Case)
	}
	page, err := os.ReadFile(report)
	require.NoError(t, err, stderr)
	require.Contains(t, string(page), `<section class="case lost" data-case="flaky">`)

	// A baseline that is not a scorecard is refused before anything runs.
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("not json"), 0o644))
	_, code, stderr = unstuck(config("candidate"), "--baseline", bad)
	require.Equal(t, 2, code, "refused, the eval could not run: %s", stderr)
	require.Contains(t, stderr, "baseline "+bad+" is not a scorecard")
	require.NotContains(t, stderr, "eval: [1/")

	// --unrecorded live: the agent's tools are declared reads, so the call the recording lacks is made for real, once, and the run
	// passes with it listed as live, not diverged.
	sc, code, stderr = evalRun(config("diverging"), "--unrecorded", "live")
	require.Equal(t, 0, code, stderr)
	byCase = scoresByCase(sc)
	require.True(t, byCase["flaky"].PassK, "%v", byCase["flaky"].Why)
	require.Equal(t, 0, byCase["flaky"].Diverged)
	require.Equal(t, 1, byCase["flaky"].Live)
	flaky = runOf(t, sc, "flaky")
	require.Equal(t, []string{boston}, flaky.Live)
	require.Empty(t, flaky.Diverged)
	searches := tools.requests("/search")
	require.Len(t, searches, 1, "the live call is made once")
	require.JSONEq(t, `{"q":"boston"}`, searches[0].Body)
	require.Equal(t, flaky.WorkflowID, searches[0].WorkflowID)
	require.Empty(t, tools.requests("/lookup"), "a recorded call is answered from the recording")
}

func scoresByCase(sc eval.Scorecard) map[string]eval.CaseScore {
	byCase := map[string]eval.CaseScore{}
	for _, c := range sc.Cases {
		byCase[c.Case] = c
	}
	return byCase
}

// runOf is the one run of the named case in sc.
func runOf(t *testing.T, sc eval.Scorecard, name string) eval.Run {
	t.Helper()
	var runs []eval.Run
	for _, r := range sc.Runs {
		if r.Case == name {
			runs = append(runs, r)
		}
	}
	require.Len(t, runs, 1, name)
	return runs[0]
}

// writeEvalCases writes cases (name to case file text) into dir/cases.
func writeEvalCases(t *testing.T, dir string, cases map[string]string) string {
	t.Helper()
	path := filepath.Join(dir, "cases")
	require.NoError(t, os.Mkdir(path, 0o755))
	for name, text := range cases {
		require.NoError(t, os.WriteFile(filepath.Join(path, name+".yaml"), []byte(text), 0o644))
	}
	return path
}

// writeEvalConfig writes evalConfig into dir as name.yaml, its model
// named name, with moreAgents (lines of its agents list) after finder.
func writeEvalConfig(t *testing.T, dir, name, modelURL, toolsURL, moreAgents string) string {
	t.Helper()
	p := filepath.Join(dir, name+".yaml")
	text := strings.NewReplacer("{{MODEL}}", modelURL, "{{TOOLS}}", toolsURL, "{{NAME}}", name).Replace(evalConfig) + moreAgents
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// unstuckEval runs `unstuck eval run cases --config cfg --json` against
// the test server: its stdout, exit code and stderr.
func unstuckEval(t *testing.T, cases, cfg string, args ...string) (string, int, string) {
	t.Helper()
	out := runCommand(t, exec.Command(filepath.Join(binaries(t), "unstuck"), append([]string{"eval", "run", cases, "--config", cfg, "--json", "--address", serverAddress}, args...)...))
	return out.stdout, out.code, out.stderr
}

// evalScorecard is unstuckEval with its stdout read as the scorecard.
func evalScorecard(t *testing.T, cases, cfg string, args ...string) (eval.Scorecard, int, string) {
	t.Helper()
	stdout, code, stderr := unstuckEval(t, cases, cfg, args...)
	var sc eval.Scorecard
	require.NoError(t, json.Unmarshal([]byte(stdout), &sc), "stdout: %s\nstderr: %s", stdout, stderr)
	return sc, code, stderr
}
