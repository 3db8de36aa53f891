package signals

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Audit is carried by every message in: who sent it and why, kept in the
// trace.
type Audit struct {
	By     string `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// ReplyRequest answers a run waiting for a person (docs/contract.md "reply").
type ReplyRequest struct {
	Audit
	Text   string          `json:"text"`
	Output json.RawMessage `json:"output,omitempty"`
	// Signature proves who replies, to a human node whose approval names
	// by: (package approvals/sign; unstuck reply --as NAME --key FILE).
	Signature string `json:"signature,omitempty"`
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

// MessageRequest is a conversation's next user message (docs/contract.md
// "message").
type MessageRequest struct {
	Audit
	Text string `json:"text"`
}

// MaxMessageText bounds a message's text: a chat message, not a document.
const MaxMessageText = 32 << 10

// Validate checks the payload itself; whether the run takes a message is
// the run's to say.
func (m MessageRequest) Validate() error {
	switch {
	case strings.TrimSpace(m.Text) == "":
		return errors.New(`message: "text" is empty (say something)`)
	case len(m.Text) > MaxMessageText:
		return fmt.Errorf(`message: "text" is %d KiB, over the %d KiB a message may hold`, len(m.Text)>>10, MaxMessageText>>10)
	}
	return nil
}

// MessageResult is the update's answer: how many messages wait to be
// taken, this one included (1: it is next).
type MessageResult struct {
	Queued int `json:"queued"`
}

// Decisions of an approval.
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"
	DecisionModify  = "modify"
	DecisionReplace = "replace"
)

// ApproveRequest settles a call waiting for approval (docs/contract.md
// "approve"): run it as is, reject it, run it with other arguments
// (modify), or run another call instead (replace).
type ApproveRequest struct {
	Audit
	CallID   string           `json:"call_id"`
	Decision string           `json:"decision"`
	Args     json.RawMessage  `json:"args,omitempty"`
	Call     *ReplacementCall `json:"call,omitempty"`
	// Signature proves who decided, for a tool whose approval names by:
	// groups (package approvals/sign; unstuck approve and the console
	// make it). Other tools ignore it.
	Signature string `json:"signature,omitempty"`
}

// ReplacementCall is the call a "replace" decision runs instead.
type ReplacementCall struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// Validate checks the payload itself; whether the call waits is the
// run's to say.
func (a ApproveRequest) Validate() error {
	var problems []string
	if strings.TrimSpace(a.CallID) == "" {
		problems = append(problems, `approve: "call_id" is empty (status lists pending_approvals)`)
	}
	switch a.Decision {
	case DecisionApprove, DecisionReject:
	case DecisionModify:
		if !isObject(a.Args) {
			problems = append(problems, `approve: "modify" needs "args", a JSON object`)
		}
	case DecisionReplace:
		if a.Call == nil || strings.TrimSpace(a.Call.Tool) == "" || !isObject(a.Call.Args) {
			problems = append(problems, `approve: "replace" needs "call": {"tool", "args" (a JSON object)}`)
		}
	default:
		problems = append(problems, fmt.Sprintf(`approve: "decision" is %q (want approve, reject, modify or replace)`, a.Decision))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// ApproveResult is the update's answer.
type ApproveResult struct {
	CallID   string `json:"call_id"`
	Decision string `json:"decision"`
	// Approved and Needed count the distinct people who approved the call
	// so far and how many it needs (approvers: N > 1 only); the call runs
	// once they meet.
	Approved int `json:"approved,omitempty"`
	Needed   int `json:"needed,omitempty"`
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return len(raw) > 0 && json.Unmarshal(raw, &m) == nil && m != nil
}

// EditRequest changes a node of a run (docs/contract.md "edit"): Output
// replaces what the node produced (the task, a model request's thought
// and calls, a call's result, a person's reply); Args replaces a call's
// arguments, so it runs again with them. Fork starts a new workflow from
// the edited point and leaves the run as it is.
type EditRequest struct {
	Audit
	NodeID string          `json:"node_id"`
	Output json.RawMessage `json:"output,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	Fork   bool            `json:"fork,omitempty"`
}

// Validate checks the payload itself; whether the node can be edited is
// the run's to say.
func (e EditRequest) Validate() error {
	var problems []string
	if strings.TrimSpace(e.NodeID) == "" {
		problems = append(problems, `edit: "node_id" is empty (the trace query lists the nodes)`)
	}
	switch {
	case len(e.Output) == 0 && len(e.Args) == 0:
		problems = append(problems, `edit: give "output" (the node's new output) or "args" (a call's new arguments)`)
	case len(e.Output) > 0 && len(e.Args) > 0:
		problems = append(problems, `edit: give "output" or "args", not both`)
	case len(e.Output) > 0 && !json.Valid(e.Output):
		problems = append(problems, `edit: "output" is not valid JSON`)
	case len(e.Args) > 0 && !isObject(e.Args):
		problems = append(problems, `edit: "args" must be a JSON object`)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// EditResult is the edit update's answer: the edit node, the nodes it
// invalidated, and the generation the run resumes in; for a fork, the new
// workflow's id instead of a generation of this run.
type EditResult struct {
	NodeID      string   `json:"node_id"`
	Edited      string   `json:"edited"`
	Invalidated []string `json:"invalidated"`
	Generation  int      `json:"generation"`
	WorkflowID  string   `json:"workflow_id,omitempty"`
}

// HandoffRequest hands a run to another agent (docs/contract.md "handoff"): to
// the one named, or to the best placed (policies.ChooseHandoff), with a
// note for it.
type HandoffRequest struct {
	Audit
	To   string `json:"to,omitempty"`
	Note string `json:"note,omitempty"`
}

// Validate checks the payload itself; whether the target can take the run
// is the run's to say.
func (h HandoffRequest) Validate() error {
	if h.To != strings.TrimSpace(h.To) || strings.ContainsAny(h.To, " \t\n") {
		return fmt.Errorf(`handoff: "to" is %q: name an agent of the worker's config, or leave it out to let the run choose`, h.To)
	}
	return nil
}

// HandoffResult is the handoff update's answer: the handoff node, the
// agent that took the run (empty when none did and the run stopped), the
// candidates refused with why, and the run's handoff path after it.
type HandoffResult struct {
	NodeID      string           `json:"node_id"`
	To          string           `json:"to,omitempty"`
	Refused     []HandoffRefusal `json:"refused,omitempty"`
	HandoffPath []string         `json:"handoff_path"`
}

// HandoffRefusal is a candidate a handoff left out, and why (the shape of
// policies.HandoffRefusal, which signals does not import).
type HandoffRefusal struct {
	Agent string `json:"agent"`
	Why   string `json:"why"`
}
