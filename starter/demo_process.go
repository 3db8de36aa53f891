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
	"sync/atomic"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/app"
)

// process is a child the demo started, with its output in a log file.
type process struct {
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	gone    atomic.Bool
}

func startProcess(logPath string, env []string, name string, args ...string) (*process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), env...)
	// Its own process group: Ctrl-C reaches the demo, which then stops
	// the children in order (worker first, then the server).
	// Pdeathsig: if the demo itself is killed (SIGKILL, a crash), the
	// kernel stops the children instead of leaving them holding the ports.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		p.gone.Store(true)
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool { return p.gone.Load() }

// tail is the end of the process's log, for error messages.
func (p *process) tail() string {
	data, _ := os.ReadFile(p.logPath)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return fmt.Sprintf("%s exited; last lines of %s:\n%s", filepath.Base(p.cmd.Path), p.logPath, strings.Join(lines, "\n"))
}

// stop asks the process to end (SIGINT) and kills it after 10 seconds.
func (p *process) stop() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// dialWhenReady connects once the dev server answers health checks.
func dialWhenReady(ctx context.Context, address string, server *process) (client.Client, error) {
	deadline := time.Now().Add(90 * time.Second)
	for {
		if server.exited() {
			return nil, errors.New(server.tail())
		}
		c, err := client.Dial(client.Options{HostPort: address, Namespace: app.DefaultNamespace, Logger: app.QuietLogger()})
		if err == nil {
			if _, err = c.CheckHealth(ctx, &client.CheckHealthRequest{}); err == nil {
				return c, nil
			}
			c.Close()
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the Temporal dev server at %s did not answer within 90s: %v (log: %s)", address, err, server.logPath)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
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
