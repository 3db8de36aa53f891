package testsuite

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/builtin"
	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// exampleSuiteDir is the example eval suite, recorded from the demo agents.
const exampleSuiteDir = "examples/eval/demo"

// demoModelURL is how the shipped demo config names the model endpoint,
// which `unstuck demo` fills in with UNSTUCK_DEMO_MODEL_URL.
const demoModelURL = "${UNSTUCK_DEMO_MODEL_URL:-http://127.0.0.1:8080/v1}"

// demoFault is one fault the example suite records the travel demo under.
type demoFault struct {
	name string
	// yaml edits the shipped demo config, whose model URL is {{MODEL}}.
	yaml func(t *testing.T, cfg string) string
	// before readies the fault on the scripted model before the run.
	before func(s *stack)
	// scripts are the model's scripts (the shipped scenarios by default).
	scripts map[string]scriptedmodel.Script
	// shows asserts the recording holds the fault and what unstuck did.
	shows func(t *testing.T, s *stack, c *eval.Case)
}

// demoFaults are the faults of the example suite, each recorded from a run
// of the demo's travel agent on the demo task.
func demoFaults() []demoFault {
	return []demoFault{
		{
			// The demo's own story: the model writes "Jan 15, 2024" and
			// the call is repaired to the date format the tool takes.
			name: "bad-dates",
			shows: func(t *testing.T, _ *stack, c *eval.Case) {
				require.GreaterOrEqual(t, c.Recorded.Repairs, 1, "the date was repaired")
				require.Equal(t, "2024-01-15", c.Tools[0].Args.(map[string]any)["date"])
			},
		},
		{
			// search_flights on a tool server whose first answer is a 503:
			// the call is retried and the booking goes on.
			name: "flaky-tool",
			yaml: func(t *testing.T, cfg string) string {
				tools := newToolServer(t, flakySearch)
				return strings.Replace(cfg, "    builtin: search_flights\n",
					"    http: { url: \""+tools.URL+"/search\" }\n", 1)
			},
			shows: func(t *testing.T, _ *stack, c *eval.Case) {
				require.Equal(t, "search_flights", c.Tools[0].Tool)
				require.NotNil(t, c.Tools[0].Result, "the retried search answered")
			},
		},
		{
			// A model that searches again and again until the ladder blocks
			// the repeating call, then books from what it found.
			name:    "stubborn-model",
			scripts: map[string]scriptedmodel.Script{scriptedmodel.TravelDemo: stubbornTraveller},
			shows: func(t *testing.T, _ *stack, c *eval.Case) {
				require.GreaterOrEqual(t, c.Recorded.Loops, 1, "the loop was met")
				require.NotEmpty(t, c.Recorded.Rungs, "the ladder climbed")
				require.NotNil(t, c.Recorded.LoopToProgress, "the booking is progress after the loops")
				require.Zero(t, c.Recorded.LoopsWithoutProgress)
			},
		},
		{
			// The model provider answers 503 twice: the model call is
			// retried as the demo config's retry policy says.
			name:   "provider-down",
			before: func(s *stack) { s.model.FailNext(2, http.StatusServiceUnavailable) },
			shows: func(t *testing.T, s *stack, c *eval.Case) {
				require.Equal(t, int64(3), c.Recorded.ModelRequests, "the run's three turns")
				require.Equal(t, 2+3, s.model.RequestCount(), "two refused attempts, then the three turns")
			},
		},
	}
}

// flakySearch is search_flights over HTTP that fails its first request
// with a 503 (a transient error) and answers as the built-in after.
func flakySearch(w http.ResponseWriter, r *http.Request, n int) {
	if n == 1 {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "search is down for a moment"})
		return
	}
	search, _ := builtin.Lookup("search_flights")
	args, _ := json.Marshal(json.RawMessage(readAll(r)))
	res, err := search(r.Context(), builtin.Call{Args: args})
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// stubbornTraveller repeats the demo's search until the ladder says the
// call is blocked, then books the first flight of the searches it saw.
func stubbornTraveller(req openaiRequest) scriptedmodel.Turn {
	if _, ok := findResult(scriptedmodel.LastToolResults(req), "book_flight"); ok {
		return scriptedmodel.Scenarios()[scriptedmodel.TravelDemo](req)
	}
	var blocked bool
	var flight any
	for _, m := range req.Messages {
		blocked = blocked || strings.Contains(m.Content, "You are repeating the same calls")
		var found struct {
			Flights []struct {
				ID any `json:"id"`
			} `json:"flights"`
		}
		if m.Role == "tool" && json.Unmarshal([]byte(m.Content), &found) == nil && len(found.Flights) > 0 {
			flight = found.Flights[0].ID
		}
	}
	if blocked && flight != nil {
		return scriptedmodel.CallTurn("book_flight", map[string]any{"flight_id": flight, "passengers": 1})
	}
	return scriptedmodel.CallTurn("search_flights", map[string]any{"from": "NYC", "to": "LAX", "date": "Jan 15, 2024"})
}

// findResult is the first result of tool among results.
func findResult(results []scriptedmodel.ToolResult, tool string) (scriptedmodel.ToolResult, bool) {
	for _, r := range results {
		if r.Name == tool {
			return r, true
		}
	}
	return scriptedmodel.ToolResult{}, false
}

// The example suite's faults, each run on the shipped demo config and
// exported with `unstuck eval export`: each case shows its fault and what
// unstuck did about it, and expects the output its run gave. With
// UNSTUCK_RECORD_EVAL_SUITE=1 the cases are written to examples/eval/demo
// (see its README.md).
func TestRecordEvalExampleSuite(t *testing.T) {
	t.Parallel()
	shipped, err := os.ReadFile(filepath.Join(repoRoot, "starter", "demo_agents.yaml"))
	require.NoError(t, err)
	for _, f := range demoFaults() {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			cfg := strings.ReplaceAll(string(shipped), demoModelURL, "{{MODEL}}")
			if f.yaml != nil {
				cfg = f.yaml(t, cfg)
			}
			scripts := f.scripts
			if scripts == nil {
				scripts = scriptedmodel.Scenarios()
			}
			s := newStack(t, cfg, scripts)
			if f.before != nil {
				f.before(s)
			}
			run := s.start(workflows.AgentInput{Agent: "travel", Task: "Book NYC to LAX on 2024-01-15 for me"})
			res, err := s.result(run)
			require.NoError(t, err)
			require.Equal(t, "completed", res.Status)
			s.awaitListed(run.GetID(), "ExecutionStatus = 'Completed'")

			_, c := exportCase(t, run.GetID())
			c.Name = f.name
			c.Recorded.Run = f.name
			c.Expect = &eval.Expect{Output: c.Recorded.Output, Match: eval.MatchExact}
			f.shows(t, s, c)
			if os.Getenv("UNSTUCK_RECORD_EVAL_SUITE") == "1" {
				path, err := eval.Write(filepath.Join(repoRoot, exampleSuiteDir), c)
				require.NoError(t, err)
				t.Logf("recorded %s", path)
			}
		})
	}
}

// exportCase exports the closed run id with `unstuck eval export`: the
// directory of its case, and the case.
func exportCase(t *testing.T, id string) (string, *eval.Case) {
	t.Helper()
	dir, out, code := exportCases(t, nil, "WorkflowId = '"+id+"'")
	require.Equal(t, 0, code, out)
	c, err := eval.Load(filepath.Join(dir, eval.CaseName(id)+eval.Ext))
	require.NoError(t, err)
	return dir, c
}
