package activities

import (
	"container/list"
	"sync"
)

// conversationCache keeps the latest conversation of recent runs in the
// worker's memory, so a model request usually needs only the messages
// added since the previous one (a delta) and the event history grows
// linearly. A miss (another worker, a restart, an edit) falls back to
// querying the run, which is always right.
type conversationCache struct {
	mu       sync.Mutex
	max      int // conversations
	maxBytes int // their approximate size in all
	bytes    int
	order    *list.List // front = most recently used; values are *cachedConversation
	byKey    map[string]*list.Element
}

type cachedConversation struct {
	key     string
	context ModelContext
	// replyID identifies the last assistant reply appended, so a reply
	// that the run never recorded (a timed-out attempt) is not trusted.
	replyID string
	bytes   int
}

// defaultCacheBytes bounds the memory the cache holds: conversations carry
// tool results of up to 1 MiB each, so a count alone does not bound it.
const defaultCacheBytes = 128 << 20

func newConversationCache(max int) *conversationCache {
	return &conversationCache{max: max, maxBytes: defaultCacheBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// sizeOf is the approximate memory of a conversation.
func sizeOf(mc ModelContext) int {
	n := 0
	for _, m := range mc.Messages {
		n += len(m.Content) + 64
		for _, tc := range m.ToolCalls {
			n += len(tc.Args) + len(tc.Name) + len(tc.ID)
		}
	}
	for _, t := range mc.Tools {
		n += len(t.Parameters) + len(t.Description)
	}
	return n
}

// get returns a copy of the cached conversation of key when it is exactly
// the one the run built: base messages, ending with reply replyID.
func (c *conversationCache) get(key string, base int, replyID string) (ModelContext, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return ModelContext{}, false
	}
	cc := el.Value.(*cachedConversation)
	if len(cc.context.Messages) != base || cc.replyID != replyID {
		return ModelContext{}, false
	}
	c.order.MoveToFront(el)
	msgs := make([]Message, len(cc.context.Messages), len(cc.context.Messages)+8)
	copy(msgs, cc.context.Messages)
	return ModelContext{Messages: msgs, Tools: cc.context.Tools}, true
}

func (c *conversationCache) put(key string, mc ModelContext, replyID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entry := &cachedConversation{key: key, context: mc, replyID: replyID, bytes: sizeOf(mc)}
	if el, ok := c.byKey[key]; ok {
		c.bytes -= el.Value.(*cachedConversation).bytes
		el.Value = entry
		c.order.MoveToFront(el)
	} else {
		c.byKey[key] = c.order.PushFront(entry)
	}
	c.bytes += entry.bytes
	// Evict the least recently used, but never the one just put.
	for c.order.Len() > 1 && (c.order.Len() > c.max || c.bytes > c.maxBytes) {
		old := c.order.Back()
		c.order.Remove(old)
		cc := old.Value.(*cachedConversation)
		c.bytes -= cc.bytes
		delete(c.byKey, cc.key)
	}
}
