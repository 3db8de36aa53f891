package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

// keygen writes a private key only the owner reads and prints the
// people.keys line of its public key; it never overwrites a key.
func TestKeygenWritesAKeyAndItsLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ana.key")
	r := runCLI(t, noDial(t), "people", "keygen", "--name", "ana", "--out", path)
	require.Equal(t, 0, r.code, r.stderr)
	name, text, ok := strings.Cut(strings.TrimSpace(r.stdout), ": ")
	require.True(t, ok, r.stdout)
	require.Equal(t, "ana", name)
	pub, err := config.PublicKey(strings.Trim(text, `"`))
	require.NoError(t, err)

	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	key, err := readApproverKey(path)
	require.NoError(t, err)
	require.Equal(t, pub, key.Public())

	again := runCLI(t, noDial(t), "people", "keygen", "--name", "ana", "--out", path)
	require.NotEqual(t, 0, again.code)
	require.Contains(t, again.stderr, "keygen never overwrites a key")
}

func TestSigningFlagsAreCheckedBeforeDialing(t *testing.T) {
	t.Setenv(approverKeyEnv, "")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"keygen without a name", []string{"people", "keygen", "--out", "x"}, "--name is required"},
		{"keygen with a dotted name", []string{"people", "keygen", "--name", "a.b", "--out", filepath.Join(t.TempDir(), "k")}, `--name: signer "a.b"`},
		{"as without a key", []string{"approve", "wf", "--call-id", "n3", "--decision", "approve", "--as", "ana"}, "--as needs --key FILE or UNSTUCK_APPROVER_KEY=FILE"},
		{"a key without as", []string{"approve", "wf", "--call-id", "n3", "--decision", "approve", "--key", "k"}, "--key needs --as"},
		{"by and as differ", []string{"approve", "wf", "--call-id", "n3", "--decision", "approve", "--as", "ana", "--key", "k", "--by", "bob"}, "--by bob and --as ana differ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, noDial(t), tc.args...)
			require.Equal(t, exitUsage, r.code, r.stderr)
			require.Contains(t, r.stderr, tc.want)
		})
	}
}
