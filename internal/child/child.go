package child

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/unstuck-dev/unstuck/policies"
)

// Options say how a child is started and stopped. The zero value: quit
// with SIGTERM, 10 s of grace, killed when the parent exits.
type Options struct {
	// Quit is the signal Stop sends first (SIGTERM when 0).
	Quit syscall.Signal
	// Grace is how long Stop waits after Quit before SIGKILL (10 s when 0).
	Grace time.Duration
	// OwnGroup puts the child in a process group of its own, so a Ctrl-C
	// at the terminal reaches only the parent, which stops its children in
	// its own order.
	OwnGroup bool
	// DeathSignal is what the kernel sends the child when the parent
	// exits, however it exits (SIGKILL when 0; Linux only).
	DeathSignal syscall.Signal
}

// Process is a running child.
type Process struct {
	cmd      *exec.Cmd
	logPath  string
	quit     syscall.Signal
	grace    time.Duration
	exited   chan struct{}
	err      error // how it exited, once exited is closed
	stopOnce sync.Once
	stopErr  error
}

// Start starts cmd with its output in logPath. cmd's own SysProcAttr
// (a Credential, say) is kept.
func Start(cmd *exec.Cmd, logPath string, o Options) (*Process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = o.OwnGroup
	dieWithParent(cmd.SysProcAttr, orSignal(o.DeathSignal, syscall.SIGKILL))
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("start %s: %w", filepath.Base(cmd.Path), err)
	}
	p := &Process{cmd: cmd, logPath: logPath, quit: orSignal(o.Quit, syscall.SIGTERM), grace: o.Grace, exited: make(chan struct{})}
	if p.grace == 0 {
		p.grace = 10 * time.Second
	}
	go func() {
		p.err = cmd.Wait()
		_ = log.Close()
		close(p.exited)
	}()
	return p, nil
}

func orSignal(v, fallback syscall.Signal) syscall.Signal {
	if v == 0 {
		return fallback
	}
	return v
}

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// HasExited says whether the process has exited.
func (p *Process) HasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Err is how the process exited, once Exited is closed.
func (p *Process) Err() error { return p.err }

// Name is the program's file name.
func (p *Process) Name() string { return filepath.Base(p.cmd.Path) }

// LogPath is where its output goes.
func (p *Process) LogPath() string { return p.logPath }

// Tail is the last n lines of its log, each clipped, for an error.
func (p *Process) Tail(n int) string {
	data, _ := os.ReadFile(p.logPath)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	lines = lines[max(0, len(lines)-n):]
	for i, line := range lines {
		lines[i] = policies.ClipText(line, 400)
	}
	return strings.Join(lines, "\n")
}

// Stop ends the process: its quit signal, then SIGKILL after the grace
// period. Stopping twice, or a process already gone, is stopping once.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		if p.HasExited() {
			return
		}
		_ = p.cmd.Process.Signal(p.quit)
		select {
		case <-p.exited:
		case <-time.After(p.grace):
			_ = p.cmd.Process.Kill()
			<-p.exited
			p.stopErr = fmt.Errorf("%s did not stop within %s of %v: killed", p.Name(), p.grace, p.quit)
		}
	})
	return p.stopErr
}
