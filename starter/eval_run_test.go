package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// eval run refuses its flags before reading the suite (the directory here
// does not exist) or dialing.
func TestEvalRunUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--report", "eval.pdf"}, `--report: report eval.pdf: the extension says the format, .md (Markdown) or .html, not ".pdf"`},
		{[]string{"--report", "eval"}, `not ""`},
		{[]string{"--threshold", "2"}, "--threshold is a share of the cases"},
	} {
		args := append([]string{"eval", "run", "no-such-dir", "--config", "candidate.yaml"}, tc.args...)
		r := runCLI(t, noDial(t), args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
	}
}
