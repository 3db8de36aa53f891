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
	mu    sync.Mutex
	max   int
	order *list.List // front = most recently used; values are *cachedConversation
	byKey map[string]*list.Element
}

type cachedConversation struct {
	key     string
	context ModelContext
	// replyID identifies the last assistant reply appended, so a reply
	// that the run never recorded (a timed-out attempt) is not trusted.
	replyID string
}

func newConversationCache(max int) *conversationCache {
	return &conversationCache{max: max, order: list.New(), byKey: map[string]*list.Element{}}
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
	if el, ok := c.byKey[key]; ok {
		el.Value = &cachedConversation{key: key, context: mc, replyID: replyID}
		c.order.MoveToFront(el)
		return
	}
	c.byKey[key] = c.order.PushFront(&cachedConversation{key: key, context: mc, replyID: replyID})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.byKey, old.Value.(*cachedConversation).key)
	}
}
