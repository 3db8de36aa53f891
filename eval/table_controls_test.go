package eval

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A judge's reason or a diverged call reaches the terminal with its
// controls written out.
func TestWriteTableWritesOutTerminalControls(t *testing.T) {
	cases := []*Case{{Name: "lost\x1b[2J", Recorded: &Outcome{Status: StatusCompleted, Steps: 2}}}
	runs := []Run{{Case: "lost\x1b[2J", Why: "judged: \x1b]0;pwned\x07 no", Outcome: Outcome{Status: StatusCompleted, Steps: 2}}}
	var b strings.Builder
	require.NoError(t, WriteTable(&b, Score(cases, runs, 0)))
	require.NotContains(t, b.String(), "\x1b")
	require.NotContains(t, b.String(), "\x07")
	require.Contains(t, b.String(), `  lost\x1b[2J: judged: \x1b]0;pwned\x07 no`)
}
