package main

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// A second demo on the same data directory is told one runs already; the
// lock is free again once the first lets go.
func TestDemoLockIsExclusive(t *testing.T) {
	o := demoOptions{dataDir: t.TempDir(), port: freeTCPPort(t), uiPort: freeTCPPort(t), consolePort: freeTCPPort(t)}
	unlock, err := lockDemo(o)
	require.NoError(t, err)
	_, err = lockDemo(o)
	require.ErrorContains(t, err, "a demo is already running")
	unlock()
	unlock2, err := lockDemo(o)
	require.NoError(t, err)
	unlock2()
}

func freeTCPPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
