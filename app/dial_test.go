package app

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// Nothing answers: the wait ends when the server's process is gone, or
// at the caller's deadline, naming the address.
func TestDialWhenReadyGivesUp(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	opts := client.Options{HostPort: addr, Logger: QuietLogger()}

	gone := make(chan struct{})
	close(gone)
	_, err = DialWhenReady(context.Background(), opts, gone)
	require.ErrorIs(t, err, ErrServerExited)

	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	_, err = DialWhenReady(ctx, opts, nil)
	require.ErrorContains(t, err, "the Temporal server at "+addr+" did not answer")
}
