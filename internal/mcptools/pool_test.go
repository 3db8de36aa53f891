package mcptools

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/unstuck-dev/unstuck/internal/testdouble/mcpserver"
	"github.com/unstuck-dev/unstuck/internal/testutil"
)

// logLines reads what the in-process double logged.
func logLines(t *testing.T, log *testutil.Buffer) []mcpserver.LogLine {
	t.Helper()
	lines, err := mcpserver.ReadLog(log.String())
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestListAndCallOverStdio(t *testing.T) {
	cfg, logPath := stdioServer(t)
	p := newPool(t, cfg)

	tools, err := p.List(ctx(t), "double")
	if err != nil {
		t.Fatal(err)
	}
	// The SDK's server lists tools sorted by name; the pool keeps the server's order.
	want := slices.Sorted(slices.Values(mcpserver.AllTools))
	if got := toolNames(tools); !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v (the server's order)", got, want)
	}
	out, err := p.Call(ctx(t), "double", "add", json.RawMessage(`{"a":3,"b":4}`), "run-1/call-7")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"sum":7}` {
		t.Errorf("add = %s, want {\"sum\":7}", out)
	}
	log := readLog(t, logPath)
	if len(log) != 1 || log[0].Tool != "add" || log[0].IdempotencyKey != "run-1/call-7" {
		t.Errorf("the server saw %+v, want one add call with key run-1/call-7", log)
	}
}

func TestListAndCallOverHTTP(t *testing.T) {
	var log testutil.Buffer
	p := newPool(t, httpServer(t, mcpserver.Options{Tools: []string{"echo", "add"}, Log: &log}))

	tools, err := p.List(ctx(t), "double")
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(tools); !slices.Equal(got, []string{"add", "echo"}) {
		t.Errorf("tools = %v, want [add echo]", got)
	}
	out, err := p.Call(ctx(t), "double", "echo", json.RawMessage(`{"q":"hi"}`), "key-http")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"q":"hi"}` {
		t.Errorf("echo = %s", out)
	}
	lines := logLines(t, &log)
	if len(lines) != 1 || lines[0].IdempotencyKey != "key-http" || string(lines[0].Args) != `{"q":"hi"}` {
		t.Errorf("the server saw %+v, want one echo call with key key-http", lines)
	}
}

func TestListedSchemas(t *testing.T) {
	p := newPool(t, httpServer(t, mcpserver.Options{Tools: []string{"add", "bad_schema"}}))
	tools, err := p.List(ctx(t), "double")
	if err != nil {
		t.Fatal(err)
	}
	add, _ := json.Marshal(tools[0].InputSchema)
	// The add tool's a must be an integer, so {"a":"3"} is invalid and can be repaired.
	if !strings.Contains(string(add), `"a":{"description":"the first addend","type":"integer"}`) || !strings.Contains(string(add), `"required":["a","b"]`) {
		t.Errorf("add's schema = %s, want a and b required integers", add)
	}
	bad, _ := json.Marshal(tools[1].InputSchema)
	if !strings.Contains(string(bad), `"$ref":"#/$defs/missing"`) {
		t.Errorf("bad_schema's schema = %s, want the dangling $ref as served", bad)
	}
}

func TestResults(t *testing.T) {
	p := newPool(t, httpServer(t, mcpserver.Options{}))
	for _, tc := range []struct {
		name, tool, args, want string
	}{
		{"structured content", "echo", `{"x":[1,2]}`, `{"x":[1,2]}`},
		{"text that is JSON", "text", `{"text":"{\"ok\":true}"}`, `{"ok":true}`},
		{"plain text", "text", `{"text":"hello"}`, `"hello"`},
		{"text items joined", "text", `{"text":"abcd","parts":2}`, `"ab\ncd"`},
		{"non-text content", "image", `{}`, `{"content":[{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="},{"type":"text","text":"a picture"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := p.Call(ctx(t), "double", tc.tool, json.RawMessage(tc.args), "")
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("%s(%s) = %s, want %s", tc.tool, tc.args, out, tc.want)
			}
		})
	}
}

func TestToolErrorIsAToolError(t *testing.T) {
	p := newPool(t, httpServer(t, mcpserver.Options{}))
	_, err := p.Call(ctx(t), "double", "fail", json.RawMessage(`{"why":1}`), "")
	var te *ToolError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v (%T), want *ToolError", err, err)
	}
	if te.Text != `the fail tool always fails: {"why":1}` || te.Tool != "fail" || te.Server != "double" {
		t.Errorf("ToolError = %+v", te)
	}
	t.Logf("fail: %v", err)
}

func TestUnknownToolIsAProtocolError(t *testing.T) {
	p := newPool(t, httpServer(t, mcpserver.Options{}))
	_, err := p.Call(ctx(t), "double", "nope", nil, "")
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want *ProtocolError", err, err)
	}
	if pe.Code != -32602 || pe.Tool != "nope" || !strings.Contains(pe.Message, `unknown tool "nope"`) {
		t.Errorf("ProtocolError = %+v, want code -32602 naming the tool", pe)
	}
	t.Logf("unknown tool: %v", err)
}

// The SDK's typed tools check arguments against the schema and answer a failure as a tool
// error (isError), not as a JSON-RPC error: the model sees it and can correct itself.
func TestBadArgumentsAreAToolError(t *testing.T) {
	p := newPool(t, httpServer(t, mcpserver.Options{}))
	_, err := p.Call(ctx(t), "double", "add", json.RawMessage(`{"a":"3","b":4}`), "")
	var te *ToolError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v (%T), want *ToolError", err, err)
	}
	if !strings.Contains(te.Text, "validating") {
		t.Errorf("ToolError text = %q, want the SDK's validation message", te.Text)
	}
	t.Logf("bad arguments: %v", err)
}

func TestUnknownServer(t *testing.T) {
	p := newPool(t, ServerConfig{Name: "fs", Command: "x"}, ServerConfig{Name: "web", URL: "http://127.0.0.1:1"})
	_, err := p.Call(ctx(t), "github", "t", nil, "")
	var ue *UnavailableError
	if err == nil || errors.As(err, &ue) || err.Error() != `no mcp server named "github" (the worker knows: "fs", "web")` {
		t.Errorf("err = %v, want a plain error naming the known servers", err)
	}
}
