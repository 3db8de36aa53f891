package testsuite

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app/replay"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// replayCLI runs `unstuck replay args...` against the test server.
func replayCLI(t *testing.T, args ...string) cmdOutput {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "unstuck"), append([]string{"replay", "--address", serverAddress}, args...)...)
	return runCommand(t, cmd)
}

// An operator's own runs, found by a visibility query and saved with
// `temporal workflow show -o json`, replay against this build; the same
// history with one activity renamed (what a build that changed a run's
// path meets) is caught, and the line names the event and the command.
func TestReplayAnOperatorsRunsByQueryAndFile(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: counter, context_window: 128000, max_output_tokens: 1000 }
tools:
  - { name: lookup, builtin: echo, parameters: { type: object } }
agents:
  - name: counter
    instructions: Look things up.
    tools: [lookup]
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"counter": counting(2)})
	var runs []string
	for range 2 {
		run := s.start(workflows.AgentInput{Agent: "counter", Task: "count"})
		_, err := s.result(run)
		require.NoError(t, err)
		runs = append(runs, run.GetID()+"/"+run.GetRunID())
	}
	query := "WorkflowType = 'AgentWorkflow' AND TaskQueue = '" + s.queue + "'"
	requireListed(t, query+" AND ExecutionStatus = 'Completed'", 2)

	out := replayCLI(t, "--query", query)
	require.Equal(t, 0, out.code, "%s%s", out.stdout, out.stderr)
	for _, r := range runs {
		require.Contains(t, out.stdout, "ok   "+r+"\n")
	}
	require.Contains(t, out.stdout, "2 runs in ")
	require.Contains(t, out.stdout, ": 2 ok, 0 would not replay, 0 bad input\n")

	out = replayCLI(t, "--query", query, "--limit", "1")
	require.Equal(t, 0, out.code, "%s%s", out.stdout, out.stderr)
	require.Contains(t, out.stdout, ": 1 ok, 0 would not replay, 0 bad input\n")
	require.Contains(t, out.stderr, "--limit 1 reached: more runs match, replaying the first 1\n")

	id, _, _ := strings.Cut(runs[0], "/")
	shown, err := exec.Command(temporalBin, "workflow", "show", "--address", serverAddress, "--workflow-id", id, "-o", "json").Output()
	require.NoError(t, err)
	dir := t.TempDir()
	saved := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(saved, shown, 0o644))
	out = replayCLI(t, saved)
	require.Equal(t, 0, out.code, "%s%s", out.stdout, out.stderr)
	require.Contains(t, out.stdout, "ok   "+saved+"\n")

	// The second model call recorded under another name: event 9 is the
	// first CallModel (after the start's markers), the second is later.
	changed := filepath.Join(dir, "changed.json")
	at := strings.Index(string(shown), `"CallModel"`)
	require.Positive(t, at)
	second := at + 1 + strings.Index(string(shown[at+1:]), `"CallModel"`)
	require.Greater(t, second, at)
	edited := string(shown[:second]) + `"CallModelV2"` + string(shown[second+len(`"CallModel"`):])
	require.NoError(t, os.WriteFile(changed, []byte(edited), 0o644))
	out = replayCLI(t, saved, changed)
	require.Equal(t, 1, out.code, "%s%s", out.stdout, out.stderr)
	require.Contains(t, out.stdout, "ok   "+saved+"\n")
	require.Regexp(t, `FAIL `+regexp.QuoteMeta(changed)+`: non-determinism at event \d+ \(ActivityTaskScheduled CallModelV2\): this build makes ScheduleActivityTask CallModel instead\n`, out.stdout)
	require.Contains(t, out.stdout, ": 1 ok, 1 would not replay, 0 bad input\n")
}

// Bad input is named, exit 2, and the good inputs beside it still replay.
func TestReplayBadInputIsNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.json")
	require.NoError(t, os.WriteFile(notes, []byte(`{"agent": "travel"}`), 0o644))
	recorded := filepath.Join(repoRoot, "testsuite", "histories", replay.Recording, "budget_cost_stop.json")
	whole, err := os.ReadFile(recorded)
	require.NoError(t, err)
	other := filepath.Join(dir, "order.json")
	require.NoError(t, os.WriteFile(other, []byte(strings.Replace(string(whole), `"AgentWorkflow"`, `"OrderWorkflow"`, 1)), 0o644))

	out := replayCLI(t, notes, other, recorded)
	require.Equal(t, 2, out.code, "%s%s", out.stdout, out.stderr)
	require.Contains(t, out.stdout, "BAD  "+notes+`: not a workflow history: a history is JSON with "events"`)
	require.Contains(t, out.stdout, "BAD  "+other+`: a history of workflow type "OrderWorkflow"; this build replays AgentWorkflow`+"\n")
	require.Contains(t, out.stdout, "ok   "+recorded+"\n")
	require.Contains(t, out.stdout, "3 runs in ")
	require.Contains(t, out.stdout, ": 1 ok, 0 would not replay, 2 bad input\n")

	// A query that finds a run of another workflow type names it.
	order, err := serverClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
		ID: "order-" + t.Name(), TaskQueue: "no-worker-serves-" + t.Name(),
	}, "OrderWorkflow")
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = serverClient.TerminateWorkflow(context.Background(), order.GetID(), "", "the test is over")
	})
	orderQuery := "WorkflowId = '" + order.GetID() + "'"
	requireListed(t, orderQuery, 1)
	out = replayCLI(t, "--query", orderQuery)
	require.Equal(t, 2, out.code, "%s%s", out.stdout, out.stderr)
	require.Contains(t, out.stdout, "BAD  "+order.GetID()+"/"+order.GetRunID()+`: a history of workflow type "OrderWorkflow"; this build replays AgentWorkflow`+"\n")

	out = replayCLI(t, "--query", "WorkflowId = 'no-run-has-this-id'")
	require.Equal(t, 2, out.code, "%s%s", out.stdout, out.stderr)
	require.Equal(t, "unstuck: no run matches --query \"WorkflowId = 'no-run-has-this-id'\"\n", out.stderr)
	require.Empty(t, out.stdout)

	out = replayCLI(t, "--query", "NoSuchField = 1")
	require.Equal(t, 2, out.code, "%s%s", out.stdout, out.stderr)
	require.Contains(t, out.stderr, "unstuck: --query \"NoSuchField = 1\" refused by the server: ")

	out = replayCLI(t)
	require.Equal(t, 2, out.code)
	require.Contains(t, out.stderr, "unstuck: replay needs --query QUERY or history files\n")
}

// `make test` replays the recorded histories as a first user would: the
// built CLI over the folder of every supported release.
func TestReplayCLIReplaysTheRecordedHistories(t *testing.T) {
	t.Parallel()
	var dirs []string
	files := 0
	for _, release := range replay.Supported {
		dir := filepath.Join(repoRoot, "testsuite", "histories", release)
		found, err := filepath.Glob(filepath.Join(dir, "*.json"))
		require.NoError(t, err)
		files += len(found)
		dirs = append(dirs, dir)
	}
	require.Positive(t, files)
	out := replayCLI(t, dirs...)
	require.Equal(t, 0, out.code, "%s%s", out.stdout, out.stderr)
	lines := strings.Split(strings.TrimSuffix(out.stdout, "\n"), "\n")
	ok := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "ok   ") {
			ok++
		}
	}
	require.Equal(t, files, ok, "one ok line per recorded history")
	require.Len(t, lines, files+1, "and the total")
	t.Log(lines[len(lines)-1])
}
