package mcptools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/unstuck-dev/unstuck/internal/testdouble/mcpserver"
)

// doubleBin is the MCP test double, built once for all tests.
var doubleBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcptools-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	doubleBin = filepath.Join(dir, "unstuck-mcp-double")
	build := exec.Command("go", "build", "-o", doubleBin, "github.com/unstuck-dev/unstuck/internal/testdouble/mcpserver/cmd/unstuck-mcp-double")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the MCP double:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// stdioServer configures the double as a stdio server logging to a file it returns.
func stdioServer(t *testing.T, args ...string) (ServerConfig, string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "calls.jsonl")
	return ServerConfig{Name: "double", Command: doubleBin, Args: append([]string{"--log", logPath}, args...), Timeout: 10 * time.Second}, logPath
}

// httpServer serves the double in-process on loopback and configures it; calls are logged to
// the returned writer.
func httpServer(t *testing.T, opts mcpserver.Options) ServerConfig {
	t.Helper()
	ts := httptest.NewServer(mcpserver.Handler(opts))
	t.Cleanup(ts.Close)
	return ServerConfig{Name: "double", URL: ts.URL, Timeout: 10 * time.Second}
}

func newPool(t *testing.T, servers ...ServerConfig) *Pool {
	t.Helper()
	p := NewPool(servers, nil)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// readLog reads the double's call log (a file, or lines a test collected).
func readLog(t *testing.T, path string) []mcpserver.LogLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("reading the double's log: %v", err)
	}
	defer f.Close()
	var lines []mcpserver.LogLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l mcpserver.LogLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines
}

func toolNames(tools []Tool) []string {
	names := make([]string, len(tools))
	for i, tl := range tools {
		names[i] = tl.Name
	}
	return names
}
