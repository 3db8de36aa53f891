package testsuite

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// exportConfig is a travel-like agent whose search is on the loopback tool
// server.
const exportConfig = `
model: { base_url: "{{MODEL}}", name: hotels }
tools:
  - { name: search, http: { url: "{{TOOLS}}/search" }, parameters: { type: object } }
agents:
  - { name: hotels, instructions: Find hotels., tools: [search] }
`

// exportSecret is the value the tool's answer holds, refused when an
// environment variable named like a secret has it.
const exportSecret = "ref-7f3a9c2e51d4"

// `unstuck eval export` writes a closed run as a case: its agent and task,
// both tool results in order (the failure with its class and message),
// its recorded status and steps, and replays with the same config as a
// pass with no tool called; a case holding the value of a secret
// environment variable is refused naming the field, a query matching no
// run exits 1, and so does a run no worker can answer the trace query
// of, refused naming its task queue.
func TestEvalExport(t *testing.T) {
	t.Parallel()
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		if n == 1 {
			writeJSON(w, 403, map[string]string{"error": "quota exceeded"})
			return
		}
		writeJSON(w, 200, map[string]string{"hotel": "H1", "ref": exportSecret})
	})
	// The model searches until the search answers, then gives its output.
	hotels := func(req openaiRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) < 2 {
			return scriptedmodel.CallTurn("search", map[string]any{"q": "nyc"})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"hotel": "H1"})
	}
	s := newStack(t, strings.ReplaceAll(exportConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{"hotels": hotels})
	run := s.start(workflows.AgentInput{Agent: "hotels", Task: "Find a hotel in NYC."})
	res, err := s.result(run)
	require.NoError(t, err)
	s.awaitListed(run.GetID(), "ExecutionStatus = 'Completed'")
	query := "WorkflowId = '" + run.GetID() + "'"

	dir, out, code := exportCases(t, nil, query)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "wrote 1 case(s) to "+dir)
	c, err := eval.Load(filepath.Join(dir, eval.CaseName(run.GetID())+eval.Ext))
	require.NoError(t, err)
	require.Equal(t, "hotels", c.Agent)
	require.Equal(t, "Find a hotel in NYC.", c.Task)
	require.Len(t, c.Tools, 2)
	require.Equal(t, "search", c.Tools[0].Tool)
	require.Equal(t, map[string]any{"q": "nyc"}, c.Tools[0].Args)
	require.NotNil(t, c.Tools[0].Error)
	require.Equal(t, "fatal", c.Tools[0].Error.Class, "403 is fatal by default")
	require.Contains(t, c.Tools[0].Error.Message, "HTTP 403")
	require.Equal(t, map[string]any{"hotel": "H1", "ref": exportSecret}, c.Tools[1].Result)
	require.Equal(t, "completed", c.Recorded.Status)
	require.Equal(t, res.Steps, c.Recorded.Steps)
	require.Equal(t, run.GetID(), c.Recorded.Run)

	// The case replays: the same config passes it as the recording did,
	// every call answered from the recording, none reaching the tool.
	sc := replayCases(t, dir, sameConfigFile(t, exportConfig, s, tools))
	require.Len(t, sc.Cases, 1)
	require.True(t, sc.Cases[0].PassK, "%v", sc.Cases[0].Why)
	require.Equal(t, 0, sc.Cases[0].Diverged)
	require.Equal(t, eval.ChangeSame, sc.Cases[0].Change)
	require.Equal(t, float64(res.Steps), sc.Cases[0].Mean.Steps, "the replay took the recording's steps")
	require.Len(t, tools.requests("/search"), 2, "the replay called no tool")

	_, out, code = exportCases(t, []string{"HOTELS_API_KEY=" + exportSecret}, query)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "refused "+run.GetID()+": tools[1].result.ref holds the value of a secret environment variable")
	require.Contains(t, out, "wrote 0 case(s) to ")

	none := "WorkflowId = 'no-such-run-" + run.GetID() + "'"
	_, out, code = exportCases(t, nil, none)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, `unstuck: no run matches the query "`+none+`" in namespace "default"`)

	// A run whose worker stopped after it closed: no worker polls its
	// task queue, so its trace cannot be read and it is refused, naming
	// the run and the task queue.
	gone := newPausable(t, strings.ReplaceAll(exportConfig, "{{TOOLS}}", tools.URL), map[string]scriptedmodel.Script{"hotels": hotels})
	orphan := gone.start(workflows.AgentInput{Agent: "hotels", Task: "Find a hotel in NYC."})
	_, err = gone.result(orphan)
	require.NoError(t, err)
	gone.pause()
	gone.awaitListed(orphan.GetID(), "ExecutionStatus = 'Completed'")
	dir, out, code = exportCases(t, nil, "WorkflowId = '"+orphan.GetID()+"'")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "refused "+orphan.GetID()+": cannot read its trace (run "+orphan.GetRunID()+")")
	require.Contains(t, out, `a closed run's trace query is answered by a worker of its task queue "`+gone.queue+`": start one polling it`)
	require.Contains(t, out, "wrote 0 case(s) to "+dir+"; 1 refused")
	require.NoFileExists(t, filepath.Join(dir, eval.CaseName(orphan.GetID())+eval.Ext))
}

// exportCases runs `unstuck eval export` of the runs query matches into a
// new directory, env added to this process's environment: the directory,
// what it printed (stdout, then stderr), and its exit status.
func exportCases(t *testing.T, env []string, query string) (dir, out string, code int) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "cases")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "unstuck"), "eval", "export", "--query", query, "--to", dir, "--address", serverAddress)
	cmd.Env = append(os.Environ(), env...)
	printed := runCommand(t, cmd)
	return dir, printed.stdout + printed.stderr, printed.code
}

// sameConfigFile writes yaml as the stack s ran it, its model s's and
// its tools on tools, to a file: the config a replay of s's runs passes.
func sameConfigFile(t *testing.T, yaml string, s *stack, tools *toolServer) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "same.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.NewReplacer("{{MODEL}}", s.model.URL(), "{{TOOLS}}", tools.URL).Replace(yaml)), 0o644))
	return path
}

// replayCases runs `unstuck eval run` of the cases of dir against the
// config file cfg, which must pass, and answers its scorecard.
func replayCases(t *testing.T, dir, cfg string) eval.Scorecard {
	t.Helper()
	sc, code, stderr := evalScorecard(t, dir, cfg)
	require.Equal(t, 0, code, stderr)
	return sc
}
