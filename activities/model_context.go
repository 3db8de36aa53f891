package activities

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// ModelContextQuery is the optional argument of the QueryModelContext
// query: the messages from index Since on (inclusive), at most Limit of
// them (0: as many as fit), never more than signals.MaxQueryAnswerBytes of
// JSON but always at least one message, so paging makes progress. Without
// an argument the run answers the whole conversation with no Next, as
// before paging existed: an activity of an earlier version would take a
// page for the whole conversation.
//
// Digest asks for the answer's Digest as well: the ConversationDigest of
// the messages before Since and the tools, so that a conversation cached
// from an earlier run of the workflow id can be confirmed without reading
// it again.
type ModelContextQuery struct {
	Since  int  `json:"since"`
	Limit  int  `json:"limit,omitempty"`
	Digest bool `json:"digest,omitempty"`
}

// ModelContextPage is the answer to the QueryModelContext query: a run of
// the conversation's messages, the tools on the first page (Since 0), and
// Next, the index to ask from, while more messages remain. A run of an
// earlier version ignores the argument and answers a whole ModelContext,
// which decodes as a page without Next.
type ModelContextPage struct {
	Messages []Message `json:"messages"`
	Tools    []ToolDef `json:"tools"`
	Next     int       `json:"next,omitempty"`
	Digest   string    `json:"digest,omitempty"`
}

// ConversationDigest identifies a conversation: its messages and tools,
// as JSON. The run and the activity compute it alike, so equal digests
// mean the activity holds what the run would answer.
func ConversationDigest(msgs []Message, tools []ToolDef) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, m := range msgs {
		_ = enc.Encode(m)
	}
	_, _ = h.Write([]byte("tools\n"))
	for _, t := range tools {
		_ = enc.Encode(t)
	}
	return hex.EncodeToString(h.Sum(nil))
}
