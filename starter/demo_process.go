package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/internal/child"
)

// startProcess starts one of the demo's children (the dev server, the
// worker) with its output in logPath. Its own process group: Ctrl-C
// reaches the demo, which then stops the children in order (worker
// first, then the server). If the demo itself is killed (SIGKILL, a
// crash), the kernel stops the children (SIGTERM) instead of leaving them
// holding the ports. Stop asks with SIGINT and kills after 10 seconds.
func startProcess(logPath string, env []string, name string, args ...string) (*child.Process, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	return child.Start(cmd, logPath, child.Options{Quit: syscall.SIGINT, OwnGroup: true, DeathSignal: syscall.SIGTERM})
}

// exitedText says a child exited, with the end of its log.
func exitedText(p *child.Process) string {
	return fmt.Sprintf("%s exited; last lines of %s:\n%s", p.Name(), p.LogPath(), p.Tail(15))
}

// dialWhenReady connects once the dev server answers health checks.
func dialWhenReady(ctx context.Context, address string, server *child.Process) (client.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	c, err := app.DialWhenReady(ctx, client.Options{HostPort: address, Namespace: app.DefaultNamespace, Logger: app.QuietLogger()}, server.Exited())
	switch {
	case errors.Is(err, app.ErrServerExited):
		return nil, errors.New(exitedText(server))
	case err != nil:
		return nil, fmt.Errorf("the Temporal dev server at %s did not answer within 90s: %v (log: %s)", address, err, server.LogPath())
	}
	return c, nil
}

// lockDemo makes sure one demo runs at a time: a second `make demo` says
// so plainly instead of failing on a busy port or a locked database. The
// lock is an flock on .data/demo.lock, which the kernel releases when the
// demo dies however it dies, so it never goes stale.
func lockDemo(o demoOptions) (unlock func(), err error) {
	path := filepath.Join(o.dataDir, "demo.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := os.ReadFile(path)
		f.Close()
		return nil, fmt.Errorf("a demo is already running (pid %s, lock %s): use it at http://127.0.0.1:%d (Web UI) and http://127.0.0.1:%d (console), or stop it with Ctrl-C in its terminal",
			strings.TrimSpace(string(pid)), path, o.uiPort, o.consolePort)
	}
	release := func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
	for _, port := range []int{o.port, o.uiPort, o.consolePort} {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			release()
			return nil, fmt.Errorf("port %d on 127.0.0.1 is in use (another Temporal server or demo?): stop it, or pass --port/--ui-port/--console-port", port)
		}
		l.Close()
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	return release, nil
}
