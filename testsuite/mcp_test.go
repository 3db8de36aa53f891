package testsuite

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/mcpserver"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// mcpCall is one call an MCP server test double logged.
type mcpCall struct {
	Tool           string          `json:"tool"`
	Args           json.RawMessage `json:"args"`
	IdempotencyKey string          `json:"idempotency_key"`
}

// mcpLog reads the calls the double logged to path.
func mcpLog(t *testing.T, path string) []mcpCall {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []mcpCall
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c mcpCall
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "log line %s", sc.Text())
		out = append(out, c)
	}
	return out
}

// mcpHTTPServer is the MCP test double served over streamable HTTP on
// loopback, logging its calls to a file.
func mcpHTTPServer(t *testing.T, tools ...string) (url, logPath string) {
	t.Helper()
	logPath = filepath.Join(t.TempDir(), "http-calls.jsonl")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	t.Cleanup(func() { _ = logFile.Close() })
	srv := httptest.NewServer(mcpserver.Handler(mcpserver.Options{Tools: tools, Log: logFile}))
	t.Cleanup(srv.Close)
	return srv.URL, logPath
}

// An agent uses a tool of an MCP server over stdio (a process the worker
// starts), one over streamable HTTP, and an HTTP tool, in one run: each
// call walks the pipeline (the HTTP server's add gets "3" and rule repair
// makes it 3), the write carries its idempotency key to the server, a
// result marked isError reaches the model as {call, error}, and the
// recorded history replays.
func TestMCPToolsNextToAnHTTPTool(t *testing.T) {
	t.Parallel()
	double := filepath.Join(binaries(t), "unstuck-mcp-double")
	stdioLog := filepath.Join(t.TempDir(), "stdio-calls.jsonl")
	webURL, webLog := mcpHTTPServer(t, "add", "echo")
	lookups := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		writeJSON(w, 200, map[string]any{"city": "Zürich"})
	})
	cfg := `
model: { base_url: "{{MODEL}}", name: mcp }
mcp_servers:
  - { name: local, command: "` + double + `", args: [--tools, "echo,fail", --log, "` + stdioLog + `"] }
  - { name: web, url: "` + webURL + `" }
tools:
  - { name: lookup, http: { url: "` + lookups.URL + `/lookup" }, parameters: { type: object, properties: { q: { type: string } } } }
agents:
  - { name: mixed, instructions: Use every tool., tools: [local/*, web/add, lookup] }
`
	script := func(req openaiRequest) scriptedmodel.Turn {
		switch scriptedmodel.AssistantTurns(req) {
		case 0:
			return scriptedmodel.CallsTurn(
				scriptedmodel.NewCall("local__echo", map[string]any{"say": "hi"}),
				scriptedmodel.NewCall("web__add", map[string]any{"a": "3", "b": 4}),
				scriptedmodel.NewCall("lookup", map[string]any{"q": "where"}),
			)
		case 1:
			return scriptedmodel.CallTurn("local__fail", map[string]any{"why": "test"})
		default:
			return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
		}
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"mcp": script})
	r := s.start(workflows.AgentInput{Agent: "mixed", Task: "use them"})
	res, err := s.result(r)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))

	// The model was offered the MCP tools by their names, with the
	// servers' schemas, next to the HTTP tool.
	offered := map[string]bool{}
	for _, tool := range s.model.Requests()[0].Tools {
		offered[tool.Function.Name] = true
	}
	require.Equal(t, map[string]bool{"local__echo": true, "local__fail": true, "web__add": true, "lookup": true, "final_output": true}, offered)

	byTool := map[string]signals.Node{}
	for _, n := range s.trace(r).Nodes {
		if n.Kind == signals.KindCall {
			byTool[n.Tool] = n
			t.Logf("%s %-12s %-9s args=%s output=%s error=%q", n.ID, n.Tool, n.Status, n.Args, n.Output, n.Error)
		}
	}
	require.Equal(t, signals.StatusCompleted, byTool["local__echo"].Status)
	require.JSONEq(t, `{"say": "hi"}`, string(byTool["local__echo"].Output))
	require.Equal(t, signals.StatusCompleted, byTool["web__add"].Status)
	require.JSONEq(t, `{"sum": 7}`, string(byTool["web__add"].Output), "rule repair made \"3\" a number")
	require.Equal(t, signals.StatusCompleted, byTool["lookup"].Status)
	require.Equal(t, signals.StatusFailed, byTool["local__fail"].Status)
	require.Contains(t, byTool["local__fail"].Error, "the fail tool always fails")

	stdio := mcpLog(t, stdioLog)
	require.Len(t, stdio, 2, "echo and fail, once each: %+v", stdio)
	web := mcpLog(t, webLog)
	require.Len(t, web, 1, "add once, after the repair: %+v", web)
	require.JSONEq(t, `{"a": 3, "b": 4}`, string(web[0].Args))
	for _, c := range append(stdio, web...) {
		require.Len(t, c.IdempotencyKey, 40, "every call carries its idempotency key: %+v", c)
	}
	recordAndReplay(t, r, "mcp_tools")
}

// The stdio server exits in the middle of a run: the call it was serving
// fails as transient and is retried on a server started again, and the
// run goes on with the next call.
func TestMCPServerCrashMidRun(t *testing.T) {
	t.Parallel()
	double := filepath.Join(binaries(t), "unstuck-mcp-double")
	logPath := filepath.Join(t.TempDir(), "calls.jsonl")
	cfg := `
model: { base_url: "{{MODEL}}", name: mcp }
mcp_servers:
  - { name: local, command: "` + double + `", args: [--tools, "echo,crash", --log, "` + logPath + `"] }
tools:
  - { name: crash, mcp: { server: local, tool: crash }, retry: { initial_interval: 100ms, max_attempts: 2 } }
agents:
  - { name: crashy, instructions: Crash then echo., tools: [crash, local/echo] }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"mcp": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("crash", map[string]any{}),
		scriptedmodel.CallTurn("local__echo", map[string]any{"after": "crash"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)})
	r := s.start(workflows.AgentInput{Agent: "crashy", Task: "crash"})
	res, err := s.result(r)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))

	var crash, echo signals.Node
	for _, n := range s.trace(r).Nodes {
		switch n.Tool {
		case "crash":
			crash = n
		case "local__echo":
			echo = n
		}
	}
	require.Equal(t, signals.StatusFailed, crash.Status)
	require.Contains(t, crash.Error, `mcp server "local"`)
	require.Equal(t, signals.StatusCompleted, echo.Status, "the server was started again: %+v", echo)
	calls := mcpLog(t, logPath)
	var crashes int
	for _, c := range calls {
		if c.Tool == "crash" {
			crashes++
		}
	}
	require.Equal(t, 2, crashes, "both attempts reached a server (each started anew): %+v", calls)
}

// Bad input at run start and per call: a tool whose schema cannot be
// compiled stays in the run and each call of it fails unsent; a server
// that lists no such tool fails the start at once, naming what it lists.
func TestMCPBadInput(t *testing.T) {
	t.Parallel()
	webURL, webLog := mcpHTTPServer(t, "echo", "bad_schema")
	cfg := `
model: { base_url: "{{MODEL}}", name: mcp }
mcp_servers:
  - { name: web, url: "` + webURL + `" }
agents:
  - { name: schemas, instructions: Call the broken tool., tools: [web/*] }
  - { name: missing, instructions: Has a tool the server lacks., tools: [web/nope] }
`
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"mcp": scriptedmodel.Sequence(
		scriptedmodel.CallTurn("web__bad_schema", map[string]any{"x": 1}),
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)})
	r := s.start(workflows.AgentInput{Agent: "schemas", Task: "call"})
	_, err := s.result(r)
	require.NoError(t, err, "the run continues")
	var bad signals.Node
	for _, n := range s.trace(r).Nodes {
		if n.Tool == "web__bad_schema" {
			bad = n
		}
	}
	require.Equal(t, signals.StatusFailed, bad.Status)
	require.Contains(t, bad.Error, "web/bad_schema")
	require.Contains(t, bad.Error, "the call was not sent")
	require.Empty(t, mcpLog(t, webLog), "never sent")

	r = s.start(workflows.AgentInput{Agent: "missing", Task: "call"})
	_, err = s.result(r)
	require.Error(t, err)
	require.Contains(t, err.Error(), `MCP server "web" has no tool "nope" (it lists: bad_schema, echo)`)
	require.False(t, strings.Contains(err.Error(), webURL), "the server's address is the worker's: not in the error")
}

// swappableHandler serves the handler set last: an MCP server whose tool
// list changes while runs use it.
type swappableHandler struct{ h atomic.Pointer[http.Handler] }

func (s *swappableHandler) set(h http.Handler) { s.h.Store(&h) }

func (s *swappableHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}

// The server's tool list changes while a run goes on: the run keeps the
// list it started with (its model is still offered add, and a call of it
// gets the server's own error), a new run gets the new list, and the first
// run's history replays without asking the server.
func TestMCPListChangesWhileARunGoesOn(t *testing.T) {
	t.Parallel()
	web := &swappableHandler{}
	web.set(mcpserver.Handler(mcpserver.Options{Tools: []string{"echo", "add"}}))
	srv := httptest.NewServer(web)
	t.Cleanup(srv.Close)
	cfg := `
model: { base_url: "{{MODEL}}", name: mcp }
mcp_servers:
  - { name: web, url: "` + srv.URL + `" }
tools:
  - { name: add, mcp: { server: web, tool: add }, retry: { max_attempts: 1 } }
agents:
  - { name: adder, instructions: Add., tools: [web/*] }
`
	script := func(req openaiRequest) scriptedmodel.Turn {
		switch scriptedmodel.AssistantTurns(req) {
		case 0:
			return scriptedmodel.CallTurn("web__echo", map[string]any{"first": true})
		case 1:
			if scriptedmodel.Task(req) == "first run" {
				// Meanwhile, the server is redeployed without add.
				web.set(mcpserver.Handler(mcpserver.Options{Tools: []string{"echo"}}))
			}
			return scriptedmodel.CallTurn("add", map[string]any{"a": 1, "b": 2})
		default:
			return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
		}
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"mcp": script})
	first := s.start(workflows.AgentInput{Agent: "adder", Task: "first run"})
	_, err := s.result(first)
	require.NoError(t, err)
	reqs := s.model.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, []string{"add", "final_output", "web__echo"}, offeredTools(reqs[2]), "the run keeps the list it started with")
	var add signals.Node
	for _, n := range s.trace(first).Nodes {
		if n.Tool == "add" {
			add = n
		}
	}
	require.Equal(t, signals.StatusFailed, add.Status)
	require.Contains(t, add.Error, `unknown tool "add"`)
	recordAndReplay(t, first, "mcp_list_changed")

	second := s.start(workflows.AgentInput{Agent: "adder", Task: "second run"})
	_, err = s.result(second)
	require.NoError(t, err)
	require.Equal(t, []string{"final_output", "web__echo"}, offeredTools(s.model.Requests()[3]), "a new run gets the new list")
}

func offeredTools(req openaiRequest) []string {
	var names []string
	for _, tool := range req.Tools {
		names = append(names, tool.Function.Name)
	}
	sort.Strings(names)
	return names
}
