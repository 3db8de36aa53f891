package mcptools

import (
	"bufio"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The double's binary over streamable HTTP, as a separate process: the pool reaches it by the
// URL it prints, and a crash (the process exits) is an UnavailableError.
func TestDoubleBinaryOverHTTP(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "calls.jsonl")
	cmd := exec.Command(doubleBin, "--http", "127.0.0.1:0", "--tools", "echo,crash", "--log", logPath)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("the double printed %q (%v), want listening on http://127.0.0.1:PORT", line, err)
	}

	p := newPool(t, ServerConfig{Name: "web", URL: url})
	if out, err := p.Call(ctx(t), "web", "echo", json.RawMessage(`{"x":1}`), "k-bin"); err != nil || string(out) != `{"x":1}` {
		t.Fatalf("echo = %s, %v", out, err)
	}
	_, err = p.Call(ctx(t), "web", "crash", nil, "")
	var ue *UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("crash: err = %v (%T), want *UnavailableError", err, err)
	}
	t.Logf("http crash: %v", err)
	if log := readLog(t, logPath); len(log) != 2 || log[0].IdempotencyKey != "k-bin" {
		t.Errorf("the server saw %+v, want echo (key k-bin) then crash", log)
	}
}
