package activities

import (
	"container/list"
	"sync"
)

// conversationCache keeps the latest conversation of recent workflows in
// the worker's memory, so a model request usually needs only the messages
// added since the previous one (a delta) and the event history grows
// linearly. A miss (another worker, a restart, an edit) falls back to
// querying the run, which is always right.
//
// Entries are keyed by workflow id, not run id, so that continue-as-new
// (a new run id) does not empty the cache and make the first request of
// every generation query the whole conversation. An entry is used only
// when it is exactly the conversation the request follows (see get):
// Base messages ending with the reply AfterReply. Within one run that
// suffices: the run only appends messages, and a ReplyID is the model
// activity's id and attempt (replyID), unique within the run, so a reply
// the run never recorded (a timed-out attempt) does not match. Across
// runs it does not: another run of the workflow id (a new generation, a
// run that reuses the id) numbers its activities from the start again, a
// rollback that invalidates steps changes earlier messages, and a new
// generation of a graph run keeps Base and AfterReply after one. So an
// entry put by another run of the workflow id is confirmed against the
// new run's digest of its first Base messages and tools before it is
// used (Activities.carriedContext), which costs a query answering only
// the delta instead of the whole conversation.
type conversationCache struct {
	mu       sync.Mutex
	max      int // conversations
	maxBytes int // their approximate size in all
	bytes    int
	order    *list.List // front = most recently used; values are *cachedConversation
	byKey    map[string]*list.Element
}

type cachedConversation struct {
	key     string // workflow id
	runID   string // the run whose conversation it is
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

// get returns a copy of the cached conversation of workflow id key when it
// is exactly the one the run built: base messages, ending with reply
// replyID; and the id of the run that put it.
func (c *conversationCache) get(key string, base int, replyID string) (ModelContext, string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return ModelContext{}, "", false
	}
	cc := el.Value.(*cachedConversation)
	if len(cc.context.Messages) != base || cc.replyID != replyID {
		return ModelContext{}, "", false
	}
	c.order.MoveToFront(el)
	msgs := make([]Message, len(cc.context.Messages), len(cc.context.Messages)+8)
	copy(msgs, cc.context.Messages)
	return ModelContext{Messages: msgs, Tools: cc.context.Tools}, cc.runID, true
}

// put keeps mc, ending with reply replyID, as the conversation of workflow
// id key, built by run runID.
func (c *conversationCache) put(key, runID string, mc ModelContext, replyID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entry := &cachedConversation{key: key, runID: runID, context: mc, replyID: replyID, bytes: sizeOf(mc)}
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
