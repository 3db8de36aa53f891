package signals

import (
	"encoding/json"
	"errors"
	"strings"
)

// Audit is carried by every message in: who sent it and why, kept in the
// trace.
type Audit struct {
	By     string `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// ReplyRequest answers a run waiting for a person (CONTRACT.md "reply").
type ReplyRequest struct {
	Audit
	Text   string          `json:"text"`
	Output json.RawMessage `json:"output,omitempty"`
}

// Validate checks the payload itself; whether anything waits is the
// run's to say.
func (r ReplyRequest) Validate() error {
	var problems []string
	if strings.TrimSpace(r.Text) == "" && len(r.Output) == 0 {
		problems = append(problems, `reply: "text" is empty (say something, or give "output")`)
	}
	if len(r.Output) > 0 && !json.Valid(r.Output) {
		problems = append(problems, `reply: "output" is not valid JSON`)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// ReplyResult is the update's answer: the trace node the reply became.
type ReplyResult struct {
	NodeID string `json:"node_id"`
}
