package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// stream_calls is off unless an agent asks, and the model activity reads it
// by agent name from the worker's config.
func TestStreamCallsParsedAndLookedUpByAgent(t *testing.T) {
	f, err := parse(withAgent(
		"  - name: x",
		"    stream_calls: true",
		"  - name: y"))
	require.NoError(t, err)
	require.True(t, f.Agents[0].StreamCalls)
	require.False(t, f.Agents[1].StreamCalls, "default is off")
	require.True(t, f.StreamsReply("x"))
	require.False(t, f.StreamsReply("y"))
	require.False(t, f.StreamsReply(""), "requests that name no agent never stream")
	require.False(t, f.StreamsReply("gone"), "an agent no longer in the config never streams")
}

func TestStreamCallsMustBeABool(t *testing.T) {
	_, err := parse(withAgent(
		"  - name: x",
		"    stream_calls: sometimes"))
	require.ErrorContains(t, err, "agents.yaml:7: agents[0].stream_calls: cannot unmarshal")
}

// A conversation's replies stream too, so a follower reads them as they
// are written; stream_calls alone decides whether calls start early.
func TestConversationRepliesStream(t *testing.T) {
	f, err := parse(withAgent(
		"  - name: chat",
		"    conversation: { idle_timeout: 1h }"))
	require.NoError(t, err)
	require.True(t, f.StreamsReply("chat"))
	require.False(t, f.Agents[0].StreamCalls)
}
