package activities

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConversationCacheIsBoundedInBytes(t *testing.T) {
	c := newConversationCache(100)
	c.maxBytes = 10_000
	big := ModelContext{Messages: []Message{{Role: "tool", Content: strings.Repeat("x", 4000)}}}
	for _, k := range []string{"a", "b", "c"} {
		c.put(k, "run", big, "r")
	}
	_, _, okA := c.get("a", 1, "r")
	_, _, okC := c.get("c", 1, "r")
	require.False(t, okA, "the oldest conversation is evicted past the byte budget")
	require.True(t, okC)
	require.LessOrEqual(t, c.bytes, c.maxBytes)

	huge := ModelContext{Messages: []Message{{Role: "tool", Content: strings.Repeat("x", 50_000)}}}
	c.put("d", "run", huge, "r")
	_, _, okD := c.get("d", 1, "r")
	require.True(t, okD, "the conversation just put stays, even alone over budget")
}
