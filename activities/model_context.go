package activities

// ModelContextQuery is the optional argument of the QueryModelContext
// query: the messages from index Since on (inclusive), at most Limit of
// them (0: as many as fit), never more than signals.MaxQueryAnswerBytes of
// JSON but always at least one message, so paging makes progress. Without
// an argument the run answers the whole conversation with no Next, as
// before paging existed: an activity of an earlier version would take a
// page for the whole conversation.
type ModelContextQuery struct {
	Since int `json:"since"`
	Limit int `json:"limit,omitempty"`
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
}
