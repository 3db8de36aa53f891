package mcptools

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/unstuck-dev/unstuck/internal/testdouble/mcpserver"
)

func TestCrashedProcessIsRestarted(t *testing.T) {
	cfg, logPath := stdioServer(t)
	p := newPool(t, cfg)
	if _, err := p.Call(ctx(t), "double", "echo", json.RawMessage(`{"n":1}`), "k1"); err != nil {
		t.Fatal(err)
	}

	_, err := p.Call(ctx(t), "double", "crash", nil, "k2")
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Server != "double" {
		t.Fatalf("crash: err = %v (%T), want *UnavailableError for server double", err, err)
	}
	if !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("crash: err = %q, want the program's exit status", err)
	}
	t.Logf("crash: %v", err)

	if _, err := p.Call(ctx(t), "double", "echo", json.RawMessage(`{"n":3}`), "k3"); err != nil {
		t.Fatalf("the call after the crash: %v", err)
	}
	log := readLog(t, logPath)
	if len(log) != 3 {
		t.Fatalf("the server saw %d calls, want 3: %+v", len(log), log)
	}
	if log[0].PID != log[1].PID || log[2].PID == log[1].PID {
		t.Errorf("pids = %d, %d, %d: want the crash on the first process and the last call on a new one",
			log[0].PID, log[1].PID, log[2].PID)
	}
}

func TestProgramThatCannotStart(t *testing.T) {
	p := newPool(t, ServerConfig{Name: "fs", Command: "/nonexistent"})
	_, err := p.List(ctx(t), "fs")
	var ue *UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v (%T), want *UnavailableError", err, err)
	}
	if !strings.HasPrefix(err.Error(), `mcp server "fs": cannot start "/nonexistent": `) {
		t.Errorf("err = %q, want it to name the server and the command", err)
	}
	t.Logf("cannot start: %v", err)
}

func TestProgramThatExitsAtOnceQuotesItsStderr(t *testing.T) {
	// Like a server missing its config: it starts, says why on stderr and exits.
	p := newPool(t, ServerConfig{Name: "fs", Command: "/bin/sh", Args: []string{"-c", "echo 'fs: no root directory given' >&2; exit 2"}})
	_, err := p.List(ctx(t), "fs")
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "its stderr ends: fs: no root directory given") {
		t.Fatalf("err = %v, want an UnavailableError quoting the program's stderr", err)
	}
	t.Logf("exits at once: %v", err)
}

func TestHTTPServerDown(t *testing.T) {
	ts := httptest.NewServer(mcpserver.Handler(mcpserver.Options{}))
	url := ts.URL
	ts.Close()
	p := newPool(t, ServerConfig{Name: "web", URL: url})
	_, err := p.Call(ctx(t), "web", "echo", nil, "")
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `mcp server "web": cannot connect to `+url) {
		t.Fatalf("err = %v (%T), want *UnavailableError naming the server and URL", err, err)
	}
	t.Logf("http down: %v", err)
}

func TestHTTPServerGoesDownBetweenCalls(t *testing.T) {
	ts := httptest.NewServer(mcpserver.Handler(mcpserver.Options{}))
	p := newPool(t, ServerConfig{Name: "web", URL: ts.URL})
	if _, err := p.Call(ctx(t), "web", "echo", nil, ""); err != nil {
		t.Fatal(err)
	}
	ts.Close()
	_, err := p.Call(ctx(t), "web", "echo", nil, "")
	var ue *UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v (%T), want *UnavailableError", err, err)
	}
	t.Logf("http gone: %v", err)
}

func TestHeadersAreSentAndExpanded(t *testing.T) {
	var got sync.Map
	inner := mcpserver.Handler(mcpserver.Options{})
	ts := httptest.NewServer(httpHandlerFunc(func(auth string) { got.Store(auth, true) }, inner))
	t.Cleanup(ts.Close)
	getenv := func(name string) (string, bool) {
		if name == "TOKEN" {
			return "s3cret", true
		}
		return "", false
	}
	p := NewPool([]ServerConfig{{Name: "web", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}}, getenv)
	t.Cleanup(func() { _ = p.Close() })
	if _, err := p.Call(ctx(t), "web", "echo", nil, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Load("Bearer s3cret"); !ok {
		t.Error("the server never saw Authorization: Bearer s3cret")
	}

	p2 := NewPool([]ServerConfig{{Name: "web", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${MISSING}"}}}, getenv)
	t.Cleanup(func() { _ = p2.Close() })
	_, err := p2.Call(ctx(t), "web", "echo", nil, "")
	var ue *UnavailableError
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), "${MISSING}, which is not set") {
		t.Errorf("err = %v, want a plain error naming the unset variable", err)
	}
	t.Logf("unset header variable: %v", err)
}

func TestConcurrentCallsShareOneSession(t *testing.T) {
	cfg, logPath := stdioServer(t)
	p := newPool(t, cfg)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = p.Call(ctx(t), "double", "slow", json.RawMessage(`{"ms":200}`), fmt.Sprint("k", i))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	log := readLog(t, logPath)
	if len(log) != n {
		t.Fatalf("the server saw %d calls, want %d", len(log), n)
	}
	maxInFlight, pids := 0, map[int]bool{}
	for _, l := range log {
		maxInFlight = max(maxInFlight, l.InFlight)
		pids[l.PID] = true
	}
	if len(pids) != 1 {
		t.Errorf("calls reached %d processes, want 1 shared session", len(pids))
	}
	if maxInFlight < 2 {
		t.Errorf("at most %d call(s) ran at once on the server, want them to overlap", maxInFlight)
	}
}

func TestListReflectsToolsAfterRestart(t *testing.T) {
	dir := t.TempDir()
	// The program is a script so that the test can change the double's --tools between starts.
	script := dir + "/double.sh"
	writeScript := func(tools string) {
		if err := os.WriteFile(script, []byte("#!/bin/sh\nexec "+doubleBin+" --tools "+tools+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeScript("echo,crash")
	p := newPool(t, ServerConfig{Name: "double", Command: script})
	tools, err := p.List(ctx(t), "double")
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(tools); !slices.Equal(got, []string{"crash", "echo"}) {
		t.Fatalf("first list = %v", got)
	}
	writeScript("add,slow")
	if _, err := p.Call(ctx(t), "double", "crash", nil, ""); err == nil {
		t.Fatal("crash succeeded")
	}
	tools, err = p.List(ctx(t), "double")
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(tools); !slices.Equal(got, []string{"add", "slow"}) {
		t.Errorf("list after restart = %v, want [add slow]", got)
	}
}

func TestClosedPoolRefusesCalls(t *testing.T) {
	cfg, _ := stdioServer(t)
	p := NewPool([]ServerConfig{cfg}, nil)
	if _, err := p.List(ctx(t), "double"); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := p.List(ctx(t), "double"); !errors.Is(err, errPoolClosed) {
		t.Errorf("List after Close: err = %v, want errPoolClosed", err)
	}
}
