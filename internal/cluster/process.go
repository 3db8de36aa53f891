package cluster

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/unstuck-dev/unstuck/policies"
)

// process is a server the cluster runs as a child: PostgreSQL or the
// Temporal server. It dies with this process (the kernel sends it SIGKILL
// when we exit, however we exit), so a test killed mid-run leaves no
// server behind; its output goes to a log file.
type process struct {
	cmd *exec.Cmd
	// quit is the signal that stops it at once and cleanly (SIGTERM;
	// PostgreSQL's fast shutdown is SIGINT: its SIGTERM waits for every
	// client to leave).
	quit     syscall.Signal
	log      *os.File
	exited   chan struct{}
	err      error // how it exited, once exited is closed
	stopOnce sync.Once
	stopErr  error
}

// startProcess starts cmd with its output in logPath; quit stops it.
func startProcess(cmd *exec.Cmd, logPath string, quit syscall.Signal) (*process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	dieWithUs(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("%s: %w", cmd.Path, err)
	}
	p := &process{cmd: cmd, quit: quit, log: log, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop ends the process: its quit signal, then SIGKILL after a grace
// period. Stopping twice is stopping once.
func (p *process) stop() error {
	p.stopOnce.Do(func() {
		_ = p.cmd.Process.Signal(p.quit)
		select {
		case <-p.exited:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
			p.stopErr = fmt.Errorf("%s did not stop within 15s of %v: killed", filepath.Base(p.cmd.Path), p.quit)
		}
		_ = p.log.Close()
	})
	return p.stopErr
}

// logTail is the end of the process's log, for an error.
func (p *process) logTail() string {
	data, _ := os.ReadFile(p.log.Name())
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	lines = lines[max(0, len(lines)-10):]
	for i, line := range lines {
		lines[i] = policies.ClipText(line, 400)
	}
	return strings.Join(lines, "\n")
}

// ownedTempDir makes a temporary directory named by prefix, with the pid
// of this process in it, after removing the directories of the prefix
// whose process is gone (a test killed before it could clean up).
func ownedTempDir(prefix string) (string, error) {
	old, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
	for _, dir := range old {
		if data, err := os.ReadFile(filepath.Join(dir, "owner.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && !alive(pid) {
				_ = os.RemoveAll(dir)
			}
		}
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	// Reachable by the postgres user, which PostgreSQL runs as under root.
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644)
}

// alive says whether a process of pid exists.
func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// handedOut are the ports freePort gave this process, so two of one
// cluster (or of two clusters) never come out the same.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// freePort is a loopback port nothing listens on now and not handed out
// before, below 32768: the server keeps its services' membership ports in
// a smallint column, and the kernel's own pick (the ephemeral range) is
// above it.
func freePort() (int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	var err error
	for range 200 {
		port := 20000 + rand.IntN(12000)
		if handedOut.ports[port] {
			continue
		}
		var l net.Listener
		if l, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
			_ = l.Close()
			handedOut.ports[port] = true
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free loopback port between 20000 and 32000: %w", err)
}
