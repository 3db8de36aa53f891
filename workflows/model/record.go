package model

import "github.com/unstuck-dev/unstuck/activities"

// Record is a model's reply as its request node keeps it (the node's
// output): what the run reads back of it (its calls, its thought) and an
// edit changes.
type Record struct {
	Content      string                `json:"content,omitempty"`
	ToolCalls    []activities.ToolCall `json:"tool_calls,omitempty"`
	FinishReason string                `json:"finish_reason,omitempty"`
	Refusal      string                `json:"refusal,omitempty"`
	// Compactions the request's conversation took before it was sent
	// (policies.context).
	Compactions []Compaction `json:"compactions,omitempty"`
	// LongerReply: the first reply was cut off in a call's arguments, and
	// this is the max_tokens it was asked again with (longer.go).
	LongerReply int `json:"longer_reply,omitempty"`
}
