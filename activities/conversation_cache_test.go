package activities

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func convo(texts ...string) ModelContext {
	mc := ModelContext{Tools: []ToolDef{{Name: "t"}}}
	for _, s := range texts {
		mc.Messages = append(mc.Messages, Message{Role: "user", Content: s})
	}
	return mc
}

// get answers only the exact conversation the run built: its length and
// the id of its last reply, with the run that put it.
func TestConversationCacheGetNeedsBaseAndReply(t *testing.T) {
	c := newConversationCache(4)
	c.put("wf", "run", convo("a", "b"), "r1")

	mc, run, ok := c.get("wf", 2, "r1")
	require.True(t, ok)
	require.Equal(t, convo("a", "b"), mc)
	require.Equal(t, "run", run)

	for _, miss := range []struct {
		key   string
		base  int
		reply string
	}{
		{"other-wf", 2, "r1"},
		{"wf", 1, "r1"},
		{"wf", 3, "r1"},
		{"wf", 2, "r0"},
		{"wf", 2, ""},
	} {
		_, _, ok := c.get(miss.key, miss.base, miss.reply)
		require.False(t, ok, "%+v", miss)
	}
}

// Putting a key again replaces its conversation.
func TestConversationCachePutReplaces(t *testing.T) {
	c := newConversationCache(4)
	c.put("k", "run", convo("a"), "r1")
	c.put("k", "run", convo("a", "b", "c"), "r2")
	_, _, ok := c.get("k", 1, "r1")
	require.False(t, ok)
	mc, _, ok := c.get("k", 3, "r2")
	require.True(t, ok)
	require.Len(t, mc.Messages, 3)
	require.Equal(t, 1, c.order.Len())
}

// Past max entries the least recently used goes; a get counts as a use.
func TestConversationCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := newConversationCache(2)
	c.put("a", "run", convo("1"), "ra")
	c.put("b", "run", convo("1"), "rb")
	_, _, ok := c.get("a", 1, "ra") // a is now the most recent
	require.True(t, ok)
	c.put("c", "run", convo("1"), "rc") // evicts b

	_, _, ok = c.get("b", 1, "rb")
	require.False(t, ok, "b was least recently used")
	_, _, ok = c.get("a", 1, "ra")
	require.True(t, ok)
	_, _, ok = c.get("c", 1, "rc")
	require.True(t, ok)
	require.Equal(t, 2, c.order.Len())
	require.Len(t, c.byKey, 2)

	c.put("a", "run", convo("1", "2"), "ra2") // a replaced and most recent: c is next to go
	c.put("d", "run", convo("1"), "rd")
	_, _, ok = c.get("c", 1, "rc")
	require.False(t, ok)
	_, _, ok = c.get("a", 2, "ra2")
	require.True(t, ok)
}

// get answers a copy: appending the delta or editing a message does not
// change what the cache holds or what another reader got.
func TestConversationCacheGetCopies(t *testing.T) {
	c := newConversationCache(2)
	c.put("k", "run", convo("a", "b"), "r1")

	one, _, ok := c.get("k", 2, "r1")
	require.True(t, ok)
	two, _, ok := c.get("k", 2, "r1")
	require.True(t, ok)

	one.Messages = append(one.Messages, Message{Role: "tool", Content: "delta one"})
	two.Messages = append(two.Messages, Message{Role: "tool", Content: "delta two"})
	require.Equal(t, "delta one", one.Messages[2].Content, "appends do not alias each other")
	require.Equal(t, "delta two", two.Messages[2].Content)
	one.Messages[0].Content = "edited"

	again, _, ok := c.get("k", 2, "r1")
	require.True(t, ok, "the cached conversation did not grow")
	require.Equal(t, convo("a", "b"), again)
}

func TestConversationCacheIsSafeForConcurrentUse(t *testing.T) {
	c := newConversationCache(8)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprint("k", i%10)
			for j := range 200 {
				c.put(key, "run", convo("x"), fmt.Sprint(j))
				if mc, _, ok := c.get(key, 1, fmt.Sprint(j)); ok {
					_ = append(mc.Messages, Message{Role: "tool"})
				}
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, c.order.Len(), 8)
	require.Equal(t, c.order.Len(), len(c.byKey))
}

// The cache is keyed by workflow id: a new run of it (continue-as-new)
// finds the conversation the previous run left, and says whose it is; a
// put by the new run replaces it.
func TestConversationCacheIsKeyedByWorkflowID(t *testing.T) {
	c := newConversationCache(4)
	c.put("wf", "run-1", convo("a", "b"), "r1")
	mc, run, ok := c.get("wf", 2, "r1")
	require.True(t, ok)
	require.Equal(t, "run-1", run)
	require.Equal(t, convo("a", "b"), mc)

	c.put("wf", "run-2", convo("a", "b", "c", "d"), "r2")
	_, run, ok = c.get("wf", 4, "r2")
	require.True(t, ok)
	require.Equal(t, "run-2", run)
	_, _, ok = c.get("wf", 2, "r1")
	require.False(t, ok, "one entry per workflow id: the latest")
	require.Equal(t, 1, c.order.Len())
}
