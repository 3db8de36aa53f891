package child

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A process stopped twice is stopped once, and its log is kept.
func TestProcessStopsOnce(t *testing.T) {
	log := filepath.Join(t.TempDir(), "sleep.log")
	p, err := Start(exec.Command("sh", "-c", "echo started; exec sleep 60"), log, Options{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return p.Tail(10) == "started" }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, p.Stop())
	require.NoError(t, p.Stop())
	<-p.Exited()
	require.Error(t, p.Err(), "ended by SIGTERM")
	require.True(t, p.HasExited())
}

// A child ends with its parent, however the parent ends: the parent here
// is this test binary run again (TestMain's helper mode), which starts a
// sleep and exits at once without stopping it.
func TestAChildEndsWithItsParent(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), "CHILD_TEST_PARENT="+pidFile)
	out, err := parent.CombinedOutput()
	require.NoError(t, err, "%s", out)
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(data))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, 10*time.Second, 20*time.Millisecond,
		"the child %d outlived its parent", pid)
}

func TestMain(m *testing.M) {
	if pidFile := os.Getenv("CHILD_TEST_PARENT"); pidFile != "" {
		p, err := Start(exec.Command("sleep", "60"), pidFile+".log", Options{})
		if err != nil {
			panic(err)
		}
		if err := os.WriteFile(pidFile, []byte(strconv.Itoa(p.cmd.Process.Pid)), 0o644); err != nil {
			panic(err)
		}
		os.Exit(0) // without Stop
	}
	os.Exit(m.Run())
}
