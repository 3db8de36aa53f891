package cluster

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

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
