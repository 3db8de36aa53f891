package cluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// A directory whose owner is gone (a test killed before it cleaned up) is
// removed by the next one; a live owner's stays.
func TestOwnedTempDirRemovesTheDeadsDirectories(t *testing.T) {
	prefix := "unstuck-test-owned-" + strconv.Itoa(os.Getpid()) + "-"
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	gone, err := os.MkdirTemp("", prefix)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(gone, "owner.pid"), []byte(strconv.Itoa(dead.Process.Pid)), 0o644))

	mine, err := ownedTempDir(prefix)
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(mine) })
	_, err = os.Stat(gone)
	require.True(t, os.IsNotExist(err), "the dead owner's directory stays: %v", err)

	again, err := ownedTempDir(prefix)
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(again) })
	_, err = os.Stat(mine)
	require.NoError(t, err, "a live owner's directory is removed")
	info, err := os.Stat(again)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), info.Mode().Perm(), "the postgres user must reach it")
}
