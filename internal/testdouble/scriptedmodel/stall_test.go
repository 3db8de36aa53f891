package scriptedmodel

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A stalling stream answers its headers (go-openai's stream opens), then
// sends nothing until the client leaves: Recv ends only when the client's
// own context does. After the first chunk, that chunk arrives first.
func TestStreamStalls(t *testing.T) {
	for _, tc := range []struct {
		fault  StreamFault
		chunks int
	}{{StreamStallsBeforeFirstByte, 0}, {StreamStallsAfterFirstChunk, 1}} {
		turn := twoCalls
		turn.Fault = tc.fault
		s, c := start(t, map[string]Script{"m": Sequence(turn)}, "")
		ctx, cancel := context.WithCancel(context.Background())
		st, err := c.CreateChatCompletionStream(ctx, streamReq("m", false))
		require.NoError(t, err, "the headers came")
		got := 0
		for range tc.chunks {
			_, err := st.Recv()
			require.NoError(t, err)
			got++
		}
		recvd := make(chan error, 1)
		go func() { _, err := st.Recv(); recvd <- err }()
		select {
		case err := <-recvd:
			t.Fatalf("fault %d: the stream went on after %d chunks: %v", tc.fault, got, err)
		case <-time.After(300 * time.Millisecond):
		}
		require.Equal(t, 1, s.OpenStreams(), "the connection is held open")
		cancel()
		require.ErrorIs(t, <-recvd, context.Canceled, "only the client's leaving ends it")
		require.Eventually(t, func() bool { return s.OpenStreams() == 0 }, 10*time.Second, 10*time.Millisecond, "the server lets go once the client left")
		_ = st.Close()
	}
}
