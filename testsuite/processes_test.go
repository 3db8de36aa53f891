package testsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/builtin"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// startWorkerProcess runs the real bin/unstuck-worker on a config file and
// a task queue of its own, against the shared dev server, with any further
// flags given.
func startWorkerProcess(t *testing.T, configYAML string, flags ...string) (queue string) {
	t.Helper()
	return startWorkerProcessEnv(t, nil, configYAML, flags...)
}

// newBinaryStack is newStack served by the worker binary instead of
// workers in the test process; opts are the scripted model server's.
func newBinaryStack(t *testing.T, yaml string, scripts map[string]scriptedmodel.Script, opts ...scriptedmodel.Option) *stack {
	t.Helper()
	s, served := unservedStack(t, yaml, scripts, opts...)
	s.queue = startWorkerProcess(t, served)
	return s
}

// startWorkerProcessEnv is startWorkerProcess with variables added to the
// worker's environment (a parallel test may not set the test process's).
func startWorkerProcessEnv(t *testing.T, env []string, configYAML string, flags ...string) (queue string) {
	t.Helper()
	bins := binaries(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "agents.yaml")
	require.NoError(t, os.WriteFile(path, []byte(configYAML), 0o644))
	queue = fmt.Sprintf("proc-%d-%d", time.Now().UnixNano(), queueSeq.Add(1))
	var logs bytes.Buffer
	cmd := exec.Command(filepath.Join(bins, "unstuck-worker"), append([]string{"--config", path, "--task-queue", queue}, flags...)...)
	cmd.Env = append(append(os.Environ(), "TEMPORAL_ADDRESS="+serverAddress, "TEMPORAL_NAMESPACE=default"), env...)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("worker output:\n%s", logs.String())
		}
	})
	return queue
}

// temporalCLI runs the plain Temporal CLI against the dev server, exactly
// as a user would.
func temporalCLI(t *testing.T, args ...string) string {
	t.Helper()
	args = append(args, "--address", serverAddress, "--namespace", "default")
	out, err := exec.Command(temporalBin, args...).CombinedOutput()
	require.NoError(t, err, "temporal %s:\n%s", strings.Join(args, " "), out)
	return string(out)
}

// A run started and read with the plain `temporal` CLI, executed by the
// real worker binary.
func TestTemporalCLIDrivesARunOnTheWorkerBinary(t *testing.T) {
	t.Parallel()
	model, err := scriptedmodel.Start("127.0.0.1:0", scriptedmodel.Scenarios(), "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	defer model.Close()
	queue := startWorkerProcess(t, strings.ReplaceAll(travelConfig, "{{MODEL}}", model.URL()))

	id := fmt.Sprintf("cli-%d", time.Now().UnixNano())
	temporalCLI(t, "workflow", "start", "--type", workflows.WorkflowName, "--task-queue", queue,
		"--workflow-id", id, "--input", `{"agent": "travel", "task": "Book NYC to LAX on 2024-01-15 for me"}`)

	var res workflows.AgentResult
	require.Eventually(t, func() bool {
		out, err := exec.Command(temporalBin, "workflow", "describe", "--workflow-id", id, "--output", "json",
			"--address", serverAddress).CombinedOutput()
		return err == nil && strings.Contains(string(out), "WORKFLOW_EXECUTION_STATUS_COMPLETED")
	}, 60*time.Second, 300*time.Millisecond)
	run := serverClient.GetWorkflow(context.Background(), id, "")
	require.NoError(t, run.Get(context.Background(), &res))
	require.Equal(t, "completed", res.Status)

	out := temporalCLI(t, "workflow", "query", "--workflow-id", id, "--name", signals.QueryTrace, "--output", "json")
	var q struct {
		QueryResult []signals.Trace `json:"queryResult"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &q), out)
	require.Len(t, q.QueryResult, 1)
	tr := q.QueryResult[0]
	require.Equal(t, signals.KindTask, tr.Nodes[0].Kind)
	require.Equal(t, signals.KindOutput, tr.Nodes[len(tr.Nodes)-1].Kind)
	require.Len(t, nodesOf(tr, signals.KindCall), 3)

	out = temporalCLI(t, "workflow", "list", "--query", fmt.Sprintf("WorkflowId = '%s' AND AgentName = 'travel'", id))
	require.Contains(t, out, id)
}

// The unstuck CLI: run --wait, status and trace in every format.
func TestUnstuckCLIRunStatusTrace(t *testing.T) {
	t.Parallel()
	model, err := scriptedmodel.Start("127.0.0.1:0", scriptedmodel.Scenarios(), "", scriptedmodel.WithLogf(t.Logf))
	require.NoError(t, err)
	defer model.Close()
	queue := startWorkerProcess(t, strings.ReplaceAll(travelConfig, "{{MODEL}}", model.URL()))
	unstuck := filepath.Join(binaries(t), "unstuck")
	cli := func(args ...string) (string, error) {
		args = append(args, "--address", serverAddress, "--namespace", "default")
		out, err := exec.Command(unstuck, args...).CombinedOutput()
		return string(out), err
	}

	id := fmt.Sprintf("unstuck-cli-%d", time.Now().UnixNano())
	out, err := cli("run", "--agent", "travel", "--task", "Book NYC to LAX on 2024-01-15 for me",
		"--task-queue", queue, "--id", id, "--wait", "--json")
	require.NoError(t, err, out)
	require.Contains(t, out, `"status": "completed"`)
	require.Contains(t, out, "CONF-")

	out, err = cli("status", id)
	require.NoError(t, err, out)
	require.Contains(t, out, "completed")
	require.Contains(t, out, "travel")

	out, err = cli("trace", id)
	require.NoError(t, err, out)
	require.Contains(t, out, "search_flights")
	require.Contains(t, out, "book_flight")

	out, err = cli("trace", id, "--format", "mermaid")
	require.NoError(t, err, out)
	require.Contains(t, out, "flowchart TD")

	out, err = cli("trace", id, "--format", "json")
	require.NoError(t, err, out)
	var tr signals.Trace
	require.NoError(t, json.Unmarshal([]byte(out), &tr))
	require.Len(t, tr.Nodes, 9, "task, 3 requests, 3 calls, the date repair, the output")

	out, err = cli("status", "no-such-workflow")
	require.Error(t, err)
	require.Contains(t, out, "no-such-workflow")
}

// A bad config is refused at worker start with the file, the path and the
// reason, and a non-zero exit.
func TestWorkerRefusesABadConfig(t *testing.T) {
	t.Parallel()
	bins := binaries(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`model: { base_url: "http://127.0.0.1:9/v1", name: m }
tools:
  - { name: book, http: { method: POST, url: "http://127.0.0.1:9/book" }, errors: [ { message: "(unclosed", class: invalid_args } ] }
agents:
  - { name: travel, instructions: x, tools: [book, bok] }
`), 0o644))
	cmd := exec.Command(filepath.Join(bins, "unstuck-worker"), "--config", path)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+serverAddress)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the worker must refuse the file")
	text := string(out)
	require.Contains(t, text, "bad.yaml:3")
	require.Contains(t, text, "tools[0].errors[0].message")
	require.Contains(t, text, "bad.yaml:5")
	require.Contains(t, text, `unknown tool "bok"`)
}

// No server where TEMPORAL_ADDRESS points (a cluster whose PostgreSQL is
// down never starts its server): the worker refuses to start, saying so
// and where to look.
func TestWorkerWithNoServerSaysWhatToDo(t *testing.T) {
	t.Parallel()
	bins := binaries(t)
	path := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(travelConfig, "{{MODEL}}", "http://127.0.0.1:9/v1")), 0o644))
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(filepath.Join(bins, "unstuck-worker"), "--config", path)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+addr)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the worker must not start")
	text := string(out)
	require.Contains(t, text, "connect to Temporal at "+addr)
	require.Contains(t, text, "no Temporal server answers there")
	require.Contains(t, text, "its PostgreSQL is unreachable or its schema is older than the server needs")
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// `unstuck demo` as `make demo` runs it: its own dev server, worker
// process and scripted model, a completed run, the trace and the Web UI
// and console links; then, still running, the demo run is there to look at
// in the Web UI and the console, until an interrupt stops everything.
func TestDemoRunsEndToEnd(t *testing.T) {
	t.Parallel()
	bins := binaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	uiPort, consolePort := freePort(t), freePort(t)
	cmd := exec.CommandContext(ctx, filepath.Join(bins, "unstuck"), "demo",
		"--temporal", temporalBin, "--worker", filepath.Join(bins, "unstuck-worker"),
		"--port", fmt.Sprint(freePort(t)), "--ui-port", fmt.Sprint(uiPort),
		"--console-port", fmt.Sprint(consolePort), "--data", t.TempDir())
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL=")
	var out testutil.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(out.String(), "Everything keeps running"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the demo did not finish its run in 2 minutes; it printed:\n%s", out.String())
		}
	}
	text := out.String()
	require.Contains(t, text, "SCRIPTED model server (a test double")
	// The worker is a version of the deployment unstuck, made current.
	require.Regexp(t, `starting worker: \S+ --config \S+ --deployment-name unstuck --build-id \S+`, text)
	require.Contains(t, text, "» worker deployment unstuck: this build (")
	require.Contains(t, text, "call search_flights")
	require.Contains(t, text, "Completed in 3 steps")
	require.Contains(t, text, `"confirmation": "CONF-`)
	require.Contains(t, text, fmt.Sprintf("Web UI:  http://127.0.0.1:%d/namespaces/default/workflows/demo-travel-", uiPort))
	consoleLink := regexp.MustCompile(fmt.Sprintf(`Console: (http://127\.0\.0\.1:%d/runs/(demo-travel-\S+))`, consolePort)).FindStringSubmatch(text)
	require.NotNil(t, consoleLink, "no console link in:\n%s", text)

	// The run is there to look at: the console's run page shows it completed,
	// and its runs list has it.
	page := httpGetBody(t, consoleLink[1])
	require.Contains(t, page, `id="run-status" data-phase="completed"`)
	require.Contains(t, httpGetBody(t, fmt.Sprintf("http://127.0.0.1:%d/", consolePort)), `data-workflow-id="`+consoleLink[2]+`"`)
	require.Contains(t, httpGetBody(t, fmt.Sprintf("http://127.0.0.1:%d/", uiPort)), "<html", "the Web UI answers")

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait(), out.String())
	require.Contains(t, out.String(), "» stopping")
}

// httpGetBody GETs url and answers its body, failing the test unless the
// answer is 200.
func httpGetBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s: %s", url, body)
	return string(body)
}

// `unstuck demo edit` end to end: a person corrects the model's thought
// while a write waits for approval, the run continues as new from the
// edited request, and the final answer follows the edit.
func TestDemoEditRunsEndToEnd(t *testing.T) {
	t.Parallel()
	bins := binaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bins, "unstuck"), "demo", "edit", "--once",
		"--temporal", temporalBin, "--worker", filepath.Join(bins, "unstuck-worker"),
		"--port", fmt.Sprint(freePort(t)), "--ui-port", fmt.Sprint(freePort(t)), "--data", t.TempDir())
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	text := string(out)
	require.Contains(t, text, `"AAPL is trending down, recommend SELL."`)
	require.Contains(t, text, "invalidated: n4, n5", "the thought's own call (the quote) is kept")
	require.Contains(t, text, "generation 1")
	require.Contains(t, text, "The final answer follows the edit: BUY")
	require.Contains(t, text, "--name edit")
}

// `unstuck demo chat --once` end to end: the concierge answers each
// message as the chat shows it, searches hotels and names them, takes the
// message sent while it was answering after that answer (queued), and
// the trace keeps each message with its author.
func TestDemoChatRunsEndToEnd(t *testing.T) {
	t.Parallel()
	bins := binaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bins, "unstuck"), "demo", "chat", "--once", "--by", "ana",
		"--temporal", temporalBin, "--worker", filepath.Join(bins, "unstuck-worker"),
		"--port", fmt.Sprint(freePort(t)), "--ui-port", fmt.Sprint(freePort(t)),
		"--console-port", fmt.Sprint(freePort(t)), "--data", t.TempDir())
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL=https://real.example/v1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	text := string(out)
	require.Contains(t, text, "the SCRIPTED model server (a test double, not a real model): this scenario is its script's story")

	hotels := builtinHotels(t, "Lisbon")
	order := []string{
		"you> Hello!\nagent> Hello! I'm the demo concierge",
		"you> I need a hotel in Lisbon for Friday\n",
		`✓ find_hotels {"city":"Lisbon"}`,
		"you> Thanks, that's perfect!\n  (queued: the agent answers it after its current step)",
		"agent> I found 3 hotels in Lisbon",
		hotels[0], hotels[1], hotels[2],
		"agent> You're welcome! Enjoy your stay in Lisbon.",
		"The messages, as the trace keeps them (task nodes, with their author):",
		"by ana: Hello!",
		"by ana: I need a hotel in Lisbon for Friday",
		"by ana: Thanks, that's perfect!",
		"Console: http://127.0.0.1:",
	}
	at := 0
	for _, want := range order {
		i := strings.Index(text[at:], want)
		require.GreaterOrEqual(t, i, 0, "%q is not after what came before it in:\n%s", want, text)
		at += i + len(want)
	}
	require.Regexp(t, `n9 +task +completed +concierge +- +n8 .*"by":"ana","message":"Thanks, that's perfect!"`, text,
		"the queued message is a task node after the hotels' answer (n8), by its author")
	requireDocShows(t, pageBlock(t, "docs/conversations.md", "you> Hello!"), text)
}

// builtinHotels are the names of the hotels find_hotels finds in city.
func builtinHotels(t *testing.T, city string) []string {
	fn, ok := builtin.Lookup("find_hotels")
	require.True(t, ok)
	res, err := fn(context.Background(), builtin.Call{Args: json.RawMessage(`{"city":"` + city + `"}`)})
	require.NoError(t, err)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	var found struct{ Hotels []struct{ Name string } }
	require.NoError(t, json.Unmarshal(b, &found))
	var names []string
	for _, h := range found.Hotels {
		names = append(names, h.Name)
	}
	require.Len(t, names, 3)
	return names
}
