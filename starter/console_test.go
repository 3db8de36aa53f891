package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// A console that would listen beyond loopback without a token is refused
// before Temporal is dialled.
func TestConsoleRefusesANonLoopbackListenWithoutAToken(t *testing.T) {
	t.Setenv(consoleTokenEnv, "")
	dialled := false
	dial := func(context.Context, client.Options) (client.Client, error) { dialled = true; return nil, nil }
	var out, errOut bytes.Buffer
	code := execute(context.Background(), []string{"console", "--listen", "0.0.0.0:8234"}, &out, &errOut, dial)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut.String(), "refusing to serve 0.0.0.0 without a token")
	require.False(t, dialled)
}
