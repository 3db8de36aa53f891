package console

import (
	"context"
	"encoding/json"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
)

// A model request's messages are what the run sent the model: the
// conversation up to the request's reply. The run answers its
// conversation as it stands (the internal model context query, as the
// model activity reads it); the request's reply is found in it, and the
// messages before the reply are the request's.

// maxContextPages bounds the pages of the conversation read for one
// request (each at most signals.MaxQueryAnswerBytes).
const maxContextPages = 32

// requestMessages are the messages request node req was sent, or none
// and why.
func (c *Console) requestMessages(ctx context.Context, id string, req signals.Node, tr signals.Trace) ([]activities.Message, string) {
	if req.Status == signals.StatusInvalidated || req.Archived {
		return nil, "not shown: the request is no longer part of the run's conversation"
	}
	var conv []activities.Message
	for since, pages := 0, 0; ; pages++ {
		if pages == maxContextPages {
			return nil, "not shown: the conversation is longer than the console reads"
		}
		var page activities.ModelContextPage
		if err := c.query(ctx, id, signals.QueryModelContext, &page, activities.ModelContextQuery{Since: since}); err != nil {
			return nil, "not shown: " + err.Error()
		}
		conv = append(conv, page.Messages...)
		if page.Next <= since {
			break
		}
		since = page.Next
	}
	if req.Status != signals.StatusCompleted {
		return conv, "" // not answered yet: what it is sent is the conversation now
	}
	at := replyIndex(conv, req, tr)
	if at < 0 {
		return nil, "not shown: its reply is no longer in the run's conversation (an edit, a handoff or a summary replaced it)"
	}
	return conv[:at], ""
}

// replyIndex is where request req's reply is in conv: the assistant
// message with its content and calls, counting the earlier requests that
// had the same reply; -1 when it is not there.
func replyIndex(conv []activities.Message, req signals.Node, tr signals.Trace) int {
	key := replyKey(req.Output)
	same := 0
	for _, n := range tr.Nodes {
		if n.ID == req.ID {
			break
		}
		if n.Kind == signals.KindRequest && n.Status == signals.StatusCompleted && replyKey(n.Output) == key {
			same++
		}
	}
	for i, m := range conv {
		if m.Role != "assistant" || messageKey(m) != key {
			continue
		}
		if same == 0 {
			return i
		}
		same--
	}
	return -1
}

// replyKey is a request's reply (its node's output) as a comparable
// string: its content and calls.
func replyKey(output json.RawMessage) string {
	var r model.Record
	if json.Unmarshal(output, &r) != nil {
		return ""
	}
	return messageKey(activities.AssistantMessage(r.Content, r.Refusal, r.ToolCalls))
}

func messageKey(m activities.Message) string {
	b, _ := json.Marshal(activities.Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls})
	return string(b)
}
