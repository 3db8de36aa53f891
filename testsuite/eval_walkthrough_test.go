package testsuite

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/docstest"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// The walkthrough page and the candidate config it shows and runs.
const (
	walkthroughPage      = "docs/eval-walkthrough.md"
	walkthroughCandidate = "examples/eval/candidate-regressed.yaml"
)

// docs/eval-walkthrough.md, run as a reader runs it: its `unstuck eval run`
// commands, read from the page, in order, in a directory holding the
// repository's examples/ and starter/, with the scripted model (a test
// double) where the demo config looks for it. The shipped config passes
// the example suite; the page's candidate (the file, shown verbatim) loses
// every case, so the eval and the CI gate exit 1; the failing run's trace
// shows the diverged call; every output line the page shows is in what the
// commands printed, so the page cannot drift from the product.
func TestEvalWalkthrough(t *testing.T) {
	t.Parallel()
	page := readWalkthrough(t)
	candidate, err := os.ReadFile(filepath.Join(repoRoot, walkthroughCandidate))
	require.NoError(t, err)
	require.Contains(t, yamlBlocks(page), string(candidate), "the page shows %s verbatim", walkthroughCandidate)
	require.Equal(t, []string{"        date: { type: string, description: the day of the flight }"}, linesNotIn(t, string(candidate), "starter/demo_agents.yaml"),
		"the candidate is the shipped travel agent with its date's format dropped")
	suite, err := eval.LoadDir(filepath.Join(repoRoot, exampleSuiteDir))
	require.NoError(t, err)

	model := startModel(t, scriptedmodel.Scenarios(), scriptedmodel.TravelDemo)
	dir := walkthroughDir(t)
	env := []string{"UNSTUCK_DEMO_MODEL_URL=" + model.URL(), "TEMPORAL_ADDRESS=" + serverAddress}

	commands := pageCommands(page, "bin/unstuck eval run ")
	require.Len(t, commands, 4, "the page's eval runs: the shipped config, the candidate, the baseline, the CI gate")
	var out [4]cmdOutput
	for i, c := range commands {
		out[i] = runShell(t, dir, env, c)
	}
	shipped, regressed, baseline, gate := out[0], out[1], out[2], out[3]

	require.Equal(t, 0, shipped.code, shipped.stderr)
	requireChanges(t, shipped.stdout, suite, "same")
	require.Contains(t, shipped.stdout, "not worse than the recording")

	require.Equal(t, 1, regressed.code, regressed.stderr)
	requireChanges(t, regressed.stdout, suite, "lost")
	require.Contains(t, regressed.stderr, "the candidate is worse than the recording: 4 of 4 case(s) lost their pass")
	report, err := os.ReadFile(filepath.Join(dir, "eval-report.md"))
	require.NoError(t, err, "the eval writes the report it is asked for")

	require.Equal(t, 0, baseline.code, baseline.stderr)
	saved, err := os.ReadFile(filepath.Join(dir, "baseline.json"))
	require.NoError(t, err)
	var sc eval.Scorecard
	require.NoError(t, json.Unmarshal(saved, &sc))
	require.Equal(t, len(suite), sc.Suite.PassK, "the baseline passes every case")

	require.Equal(t, 1, gate.code, gate.stderr)
	requireChanges(t, gate.stdout, suite, "lost")
	require.Contains(t, gate.stderr, "the candidate is worse than the baseline baseline.json: 4 of 4 case(s) lost their pass, over --threshold 0.25")
	_, err = os.Stat(filepath.Join(dir, "eval-report.html"))
	require.NoError(t, err, "the gate writes its report for the CI job to keep")

	// Where the runs are: the Web UI lists them by the eval's task queue.
	// The failing run's trace, read (as the page says) with a worker
	// polling that queue, the eval's own workers having stopped with it.
	queue := evalQueue(t, regressed.stderr)
	requireListed(t, "TaskQueue = '"+queue+"'", len(suite))
	startWorkerProcessEnv(t, env, string(candidate), "--task-queue", queue)
	traceCommands := pageCommands(page, "bin/unstuck trace ")
	require.Len(t, traceCommands, 2, "the trace as a table, then the failed call")
	var traces []string
	for _, c := range traceCommands {
		trace := runShell(t, dir, env, stampPattern.ReplaceAllString(c, strings.TrimPrefix(queue, "eval-")))
		require.Equal(t, 0, trace.code, trace.stderr)
		traces = append(traces, trace.stdout)
	}
	require.Contains(t, traces[1], `"date":"Jan 15, 2024"`, "the trace shows the call the recording lacks")

	printed := strings.Join([]string{shipped.stdout, shipped.stderr, regressed.stdout, regressed.stderr,
		string(report), gate.stdout, gate.stderr, traces[0], traces[1]}, "\n")
	requireShown(t, page, printed)
}

// readWalkthrough is the walkthrough page.
func readWalkthrough(t *testing.T) docstest.Page {
	t.Helper()
	pages, err := docstest.Pages(repoRoot)
	require.NoError(t, err)
	for _, p := range pages {
		if p.Path == walkthroughPage {
			return p
		}
	}
	t.Fatalf("no %s", walkthroughPage)
	return docstest.Page{}
}

// yamlBlocks are the bodies of the page's ```yaml blocks.
func yamlBlocks(p docstest.Page) []string {
	var bodies []string
	for _, b := range p.Blocks() {
		if b.Lang == "yaml" {
			bodies = append(bodies, b.Body)
		}
	}
	return bodies
}

// linesNotIn are the lines of config (but comments) that the repository's
// file does not have.
func linesNotIn(t *testing.T, config, file string) []string {
	t.Helper()
	have, err := os.ReadFile(filepath.Join(repoRoot, file))
	require.NoError(t, err)
	var missing []string
	for _, l := range strings.Split(config, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") && !strings.Contains(string(have), l+"\n") {
			missing = append(missing, l)
		}
	}
	return missing
}

// pageCommands are the lines of the page's shell blocks that start with
// prefix, in order.
func pageCommands(p docstest.Page, prefix string) []string {
	var commands []string
	for _, b := range p.Blocks() {
		if !b.IsShell() {
			continue
		}
		for _, line := range strings.Split(b.Body, "\n") {
			if strings.HasPrefix(line, prefix) {
				commands = append(commands, line)
			}
		}
	}
	return commands
}

// walkthroughDir is where the page's commands run: bin/ holds the real
// binaries, examples/ and starter/ are the repository's.
func walkthroughDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.Symlink(binaries(t), filepath.Join(dir, "bin")))
	for _, d := range []string{"examples", "starter"} {
		require.NoError(t, os.Symlink(filepath.Join(repoRoot, d), filepath.Join(dir, d)))
	}
	return dir
}

// runShell runs one command line with bash in dir.
func runShell(t *testing.T, dir string, env []string, line string) cmdOutput {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out := runCommand(t, cmd)
	t.Logf("%s\nexit %d\nstdout:\n%s\nstderr:\n%s", line, out.code, out.stdout, out.stderr)
	return out
}

// requireChanges asserts the scorecard table gives every case of the
// suite the change word (same, lost, gained) in its row.
func requireChanges(t *testing.T, table string, suite []*eval.Case, change string) {
	t.Helper()
	for _, c := range suite {
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.Name) + ` .*$`).FindString(table)
		require.NotEmpty(t, row, "no row of %s in\n%s", c.Name, table)
		require.Regexp(t, `  `+change+`(;.*)?$`, row, c.Name)
	}
}

var queuePattern = regexp.MustCompile(`on task queue (eval-\S+),`)

// evalQueue is the task queue an eval's progress lines name.
func evalQueue(t *testing.T, stderr string) string {
	t.Helper()
	m := queuePattern.FindStringSubmatch(stderr)
	require.NotNil(t, m, "no task queue in\n%s", stderr)
	return m[1]
}

// What differs from one run of the same commands to the next: the eval's
// stamp, clock times, the order runs finish in, the model's call ids and
// token counts (they follow the workflow ids' lengths by a token or so).
var (
	stampPattern = regexp.MustCompile(`\d{8}-\d{6}-[0-9a-f]{6}`)
	varying      = []*regexp.Regexp{
		stampPattern,
		regexp.MustCompile(`\d{2}:\d{2}:\d{2}(\.\d+)?`), // clock times
		regexp.MustCompile(`\[\d+/`),                    // progress: [3/4]
		regexp.MustCompile(`call_\d+_\d+`),              // the model's call ids
		regexp.MustCompile(`\b\d{4,}\b`),                // token counts
	}
)

// masked is text with what differs between runs replaced by "<>".
func masked(text string) string {
	for _, p := range varying {
		text = p.ReplaceAllString(text, "<>")
	}
	return text
}

// requireShown asserts every line of the page's ```text and ```markdown
// blocks (its output and report excerpts) is a line of what the commands
// printed, but for what differs between runs.
func requireShown(t *testing.T, p docstest.Page, printed string) {
	t.Helper()
	lines := map[string]bool{}
	for _, l := range strings.Split(masked(printed), "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	shown := 0
	for _, b := range p.Blocks() {
		if b.Lang != "text" && b.Lang != "markdown" {
			continue
		}
		for _, l := range strings.Split(masked(b.Body), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				shown++
				require.True(t, lines[l], "%s shows a line no command printed:\n%s\nprinted:\n%s", b.Where(), l, printed)
			}
		}
	}
	require.NotZero(t, shown, "the page shows no output")
}
