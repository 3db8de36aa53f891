package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/unstuck-dev/unstuck/internal/mcptools"
	"github.com/unstuck-dev/unstuck/internal/testdouble/mcpserver"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// MCP tools (issue 17): the same work (an echo of the call's arguments)
// as an HTTP tool of the loopback tool server, as a tool of the MCP
// server test double over streamable HTTP on loopback, and over stdio (a
// process the worker started). Agents echohttp, echomcpweb and
// echomcpstdio each call their tool once per step.

const mcpModel = "bench-mcp"

// mcpBench is what the MCP benchmark started: the double's HTTP server
// and the stdio binary (built in runMain).
var mcpBench struct {
	web    *httptest.Server
	binary string
}

// startMCPDoubles builds the MCP server test double and serves it over
// HTTP on loopback; the worker starts the stdio one itself.
func startMCPDoubles(dir string) error {
	mcpBench.binary = filepath.Join(dir, "unstuck-mcp-double")
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "build", "-o", mcpBench.binary, "./internal/testdouble/mcpserver/cmd/unstuck-mcp-double")
	cmd.Dir = filepath.Dir(filepath.Dir(file))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the MCP double: %v\n%s", err, out)
	}
	mcpBench.web = httptest.NewServer(mcpserver.Handler(mcpserver.Options{Tools: []string{"echo"}}))
	return nil
}

func mcpServersYAML() string {
	return fmt.Sprintf("mcp_servers:\n  - { name: mcpweb, url: %q }\n  - { name: mcplocal, command: %q, args: [--tools, echo] }\n",
		mcpBench.web.URL, mcpBench.binary)
}

func mcpTools(url string) string {
	return fmt.Sprintf("  - { name: echohttp, http: { url: %q }, parameters: { type: object } }\n", url+"/echohttp") +
		fmt.Sprintf("  - { name: echohttplocal, local: true, http: { url: %q }, parameters: { type: object } }\n", url+"/echohttp")
}

const mcpAgents = `  - { name: echohttp, instructions: Benchmark., model: { name: ` + mcpModel + ` }, tools: [echohttp], policies: { max_steps: 2000 } }
  - { name: echohttplocal, instructions: Benchmark., model: { name: ` + mcpModel + ` }, tools: [echohttplocal], policies: { max_steps: 2000 } }
  - { name: echomcpweb, instructions: Benchmark., model: { name: ` + mcpModel + ` }, tools: [mcpweb/echo], policies: { max_steps: 2000 } }
  - { name: echomcpstdio, instructions: Benchmark., model: { name: ` + mcpModel + ` }, tools: [mcplocal/echo], policies: { max_steps: 2000 } }`

// mcpScript (a test double of the model): the task "<tool> N" calls the
// tool N times, one call a step, then final_output.
func mcpScript(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	tool, n, _ := strings.Cut(scriptedmodel.Task(req), " ")
	steps, _ := strconv.Atoi(n)
	turn := scriptedmodel.AssistantTurns(req)
	if turn < steps {
		return scriptedmodel.CallTurn(tool, map[string]any{"i": turn, "text": "the same small payload"})
	}
	return scriptedmodel.CallTurn("final_output", map[string]any{"steps": turn})
}

// BenchmarkMCPCall reports, side by side in one run, a step that calls
// the echo tool over MCP (HTTP and stdio) against one calling it over
// plain HTTP (the engine's view, ms per step, 20-step runs, 3 interleaved
// rounds), and the bare call through the worker's MCP pool against a bare
// HTTP POST (µs per call, 500 calls each), with their ratios.
func BenchmarkMCPCall(b *testing.B) {
	const steps, rounds = 20, 3
	sides := []struct{ agent, tool string }{
		{"echohttp", "echohttp"}, {"echomcpweb", "mcpweb__echo"}, {"echomcpstdio", "mcplocal__echo"},
	}
	for i := 0; i < b.N; i++ {
		perStep := map[string][]float64{}
		for r := 0; r < rounds; r++ {
			for _, s := range sides {
				d, _ := execute(b, workflows.WorkflowName, workflows.AgentInput{Agent: s.agent, Task: fmt.Sprintf("%s %d", s.tool, steps)})
				perStep[s.agent] = append(perStep[s.agent], float64(d.Milliseconds())/float64(steps+1))
			}
		}
		httpMS, webMS, stdioMS := median64(perStep["echohttp"]), median64(perStep["echomcpweb"]), median64(perStep["echomcpstdio"])
		b.ReportMetric(httpMS, "step-ms-http")
		b.ReportMetric(webMS, "step-ms-mcp-http")
		b.ReportMetric(stdioMS, "step-ms-mcp-stdio")
		b.ReportMetric(webMS/httpMS, "step-ratio-mcp-http")
		b.ReportMetric(stdioMS/httpMS, "step-ratio-mcp-stdio")

		callHTTP, callWeb, callStdio := bareCalls(b)
		b.ReportMetric(callHTTP, "call-us-http")
		b.ReportMetric(callWeb, "call-us-mcp-http")
		b.ReportMetric(callStdio, "call-us-mcp-stdio")
		b.ReportMetric(callWeb/callHTTP, "call-ratio-mcp-http")
		b.ReportMetric(callStdio/callHTTP, "call-ratio-mcp-stdio")
	}
}

// bareCalls times one call of the same echo, outside Temporal: a POST to
// the tool server, and a call through a pool of the worker's MCP client
// to each double (median µs of 500, sides interleaved, after a warm-up).
func bareCalls(b *testing.B) (httpUS, webUS, stdioUS float64) {
	b.Helper()
	pool := mcptools.NewPool([]mcptools.ServerConfig{
		{Name: "web", URL: mcpBench.web.URL},
		{Name: "local", Command: mcpBench.binary, Args: []string{"--tools", "echo"}},
	}, os.LookupEnv)
	defer func() { _ = pool.Close() }()
	ctx := context.Background()
	args := json.RawMessage(`{"i": 1, "text": "the same small payload"}`)
	post := func() error {
		resp, err := http.Post(tools.URL+"/echohttp", "application/json", bytes.NewReader(args))
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
	call := func(server string) func() error {
		return func() error {
			_, err := pool.Call(ctx, server, "echo", args, "bench-key")
			return err
		}
	}
	sides := []func() error{post, call("web"), call("local")}
	times := make([][]float64, len(sides))
	for round := 0; round < 510; round++ {
		for i, f := range sides {
			start := time.Now()
			if err := f(); err != nil {
				b.Fatalf("bare call %d: %v", i, err)
			}
			if round >= 10 { // warm-up: connections made, processes started
				times[i] = append(times[i], float64(time.Since(start).Microseconds()))
			}
		}
	}
	return median64(times[0]), median64(times[1]), median64(times[2])
}
