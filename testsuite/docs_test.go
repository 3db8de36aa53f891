package testsuite

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/docstest"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// Every shell block (```sh, ```bash, ```console) of README.md and
// docs/*.md either runs, as written, against the dev server, or says on
// the line before its fence why it does not (<!-- not run: reason -->).
// A block runs with bash -euo pipefail in a directory of its own where
// bin/unstuck, bin/unstuck-worker and bin/temporal are the real binaries
// (also on PATH), agents.yaml is the demo's config, TEMPORAL_ADDRESS is
// the dev server's, and a real worker serves the demo's agents on the
// task queue agents with the scripted model (a test double) as their
// model. A ```text block right after a block that runs is what it
// prints: each of its lines is a line of the output ("…" for what differs
// from one run to the next).
func TestDocsShellExamplesRun(t *testing.T) {
	t.Parallel()
	pages, err := docstest.Pages(docstest.Root())
	require.NoError(t, err)
	var run []docstest.Block
	shows := map[int]docstest.Block{} // a block of run: the output its page shows after it
	for _, p := range pages {
		for _, b := range p.Blocks() {
			if !b.IsShell() {
				continue
			}
			switch {
			case b.Marked && b.NotRun == "":
				t.Errorf("%s: <!-- not run: --> without a reason", b.Where())
			case b.Marked:
				t.Logf("%s: not run: %s", b.Where(), b.NotRun)
			default:
				if out, ok := p.OutputOf(b); ok {
					shows[len(run)] = out
				}
				run = append(run, b)
			}
		}
	}
	require.NotEmpty(t, run, "no shell block of the docs runs")

	bins := binaries(t)
	demo, err := os.ReadFile(filepath.Join(repoRoot, "starter", "demo_agents.yaml"))
	require.NoError(t, err)
	model, err := scriptedmodel.Start("127.0.0.1:0", scriptedmodel.Scenarios(), "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	t.Cleanup(func() { _ = model.Close() })
	// The demo's agents on the scripted model, as `unstuck demo` runs them
	// (the stock and customer-service agents' own endpoint too), on the
	// task queue the docs' commands use by default (a later --task-queue
	// wins over the harness's own).
	modelEnv := []string{"OPENAI_BASE_URL=" + model.URL(), "UNSTUCK_DEMO_MODEL_URL=" + model.URL()}
	startWorkerProcessEnv(t, modelEnv, string(demo), "--task-queue", "agents")

	for i, b := range run {
		t.Run(fmt.Sprintf("%s:%d", b.Page, b.Line), func(t *testing.T) {
			out := runDocsBlock(t, bins, modelEnv, demo, b)
			t.Logf("%s printed:\n%s", b.Where(), out)
			if shown, ok := shows[i]; ok {
				requireDocShows(t, shown, out)
			}
		})
	}
}

// runDocsBlock runs one block, failing the test unless it exits 0, and
// answers what it printed. env is added to the block's environment.
func runDocsBlock(t *testing.T, bins string, env []string, agents []byte, b docstest.Block) string {
	t.Helper()
	dir := t.TempDir()
	binDir := filepath.Join(dir, "bin")
	require.NoError(t, os.Mkdir(binDir, 0o755))
	for name, target := range map[string]string{
		"unstuck":        filepath.Join(bins, "unstuck"),
		"unstuck-worker": filepath.Join(bins, "unstuck-worker"),
		"temporal":       temporalBin,
	} {
		abs, err := filepath.Abs(target)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(abs, filepath.Join(binDir, name)))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "agents.yaml"), agents, 0o644))
	script := filepath.Join(dir, "block.sh")
	require.NoError(t, os.WriteFile(script, []byte(b.ShellText()), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"TEMPORAL_ADDRESS="+serverAddress, "TEMPORAL_NAMESPACE=default",
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s failed:\n%s\n-- its output:\n%s", b.Where(), b.Body, out)
	return string(out)
}

// pageBlock is the block of the docs page whose body holds has: an
// example a test compares with what it ran.
func pageBlock(t *testing.T, page, has string) docstest.Block {
	t.Helper()
	pages, err := docstest.Pages(repoRoot)
	require.NoError(t, err)
	for _, p := range pages {
		for _, b := range p.Blocks() {
			if p.Path == page && strings.Contains(b.Body, has) {
				return b
			}
		}
	}
	t.Fatalf("no block of %s holds %q", page, has)
	return docstest.Block{}
}

// requireDocShows asserts every line of the docs block is a line of what
// was printed ("…" for what differs from run to run).
func requireDocShows(t *testing.T, b docstest.Block, printed string) {
	t.Helper()
	require.Empty(t, docstest.NotPrinted(b.Body, printed), "%s shows lines that were not printed; printed:\n%s", b.Where(), printed)
}
