package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A conversation waits 24 hours for the next message unless it says, and
// takes a message that comes while it works after the current step.
func TestConversationDefaults(t *testing.T) {
	f, err := parse(withAgent(
		"  - name: x",
		"    conversation: {}",
		"  - name: y",
		"    conversation: {idle_timeout: 10m}",
		"    double_text: reject",
		"  - name: z"))
	require.NoError(t, err)
	require.Equal(t, 24*time.Hour, f.Agents[0].Conversation.IdleTimeout.D())
	require.Equal(t, DoubleTextEnqueue, f.Agents[0].DoubleText)
	require.Equal(t, 10*time.Minute, f.Agents[1].Conversation.IdleTimeout.D())
	require.Equal(t, DoubleTextReject, f.Agents[1].DoubleText)
	require.Nil(t, f.Agents[2].Conversation, "not a conversation unless it says")
	require.Empty(t, f.Agents[2].DoubleText)
}
