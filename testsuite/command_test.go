package testsuite

import (
	"bytes"
	"errors"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// cmdOutput is what a command printed and its exit status.
type cmdOutput struct {
	stdout, stderr string
	code           int
}

// runCommand runs cmd to its end and answers what it printed and its
// exit status; a command that could not run at all fails the test. The
// tests of exit statuses read code, the others require it 0.
func runCommand(t *testing.T, cmd *exec.Cmd) cmdOutput {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	out := cmdOutput{}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "%s: %v\n%s", cmd, err, stderr.String())
		out.code = exit.ExitCode()
	}
	out.stdout, out.stderr = stdout.String(), stderr.String()
	return out
}
