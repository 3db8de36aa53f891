package signals

import (
	"encoding/json"
	"time"
)

// Status is the answer to the status query.
type Status struct {
	Agent            string            `json:"agent"`
	Phase            Phase             `json:"phase"`
	Step             int               `json:"step"`
	Generation       int               `json:"generation"`
	PendingApprovals []PendingApproval `json:"pending_approvals"`
	// PendingReply is the human node waiting for a person's reply (a
	// graph's human node, the ladder's human rung, a person agent's
	// run); absent when none waits.
	PendingReply *PendingReply `json:"pending_reply,omitempty"`
	Loops        []Loop        `json:"loops"`
	// LoopsDropped: the run met this many loops before those listed (only
	// the latest are kept); absent when all are listed.
	LoopsDropped int               `json:"loops_dropped,omitempty"`
	Breakers     map[string]string `json:"breakers"`
	HandoffPath  []string          `json:"handoff_path"`
	LastError    string            `json:"last_error"`
	// Fallbacks counts the calls a fallback served (trace nodes with
	// fallback_of), in every generation.
	Fallbacks int `json:"fallbacks"`
	// ModelFallbacks counts the model requests turned to a fallback model
	// (model.fallbacks); absent when none was.
	ModelFallbacks int `json:"model_fallbacks,omitempty"`
	// Unverified counts the calls that failed their check (a tool's
	// result_schema or verify); absent when none did.
	Unverified int `json:"unverified,omitempty"`
	// Spend is what the run spent, per kind and per agent, against its
	// budget's limits (policies.budget); absent before it spent anything.
	Spend *SpendStatus `json:"spend,omitempty"`
	// Conversation: the run's agent is a conversation (its config has
	// conversation:), so an output ends a turn and the run waits for the
	// user's next message; absent otherwise.
	Conversation bool `json:"conversation,omitempty"`
	// Outage: the run waits out a service that is down (phase
	// waiting_outage); absent otherwise.
	Outage *OutageStatus `json:"outage,omitempty"`
}

// OutageStatus is the outage a run waits out: Of is the tool (or model)
// that is down, Since when the run began to wait, NextProbe when it tries
// again.
type OutageStatus struct {
	Of        string    `json:"of"`
	Since     time.Time `json:"since"`
	NextProbe time.Time `json:"next_probe"`
}

// PendingApproval is a call waiting for a person's decision.
type PendingApproval struct {
	CallID string          `json:"call_id"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	// WaitingSince is when the call began to wait (for the group asked
	// now, once escalated), Deadline when the wait times out; Overdue:
	// the run saw it pass half its timeout. Escalations counts the
	// groups asked before this one.
	WaitingSince time.Time `json:"waiting_since,omitzero"`
	Deadline     time.Time `json:"deadline,omitzero"`
	Overdue      bool      `json:"overdue,omitempty"`
	Escalations  int       `json:"escalations,omitempty"`
	// Answering are the groups (people.groups) whose members may answer
	// now, for a tool whose approval names by: (escalated: the groups
	// asked so far); ApprovedBy, who approved it already under
	// approvers: N, waiting for the rest.
	Answering  []string `json:"answering,omitempty"`
	ApprovedBy []string `json:"approved_by,omitempty"`
}

// PendingReply is a human node waiting for a person's reply: why it
// asks, since when and until when (its approval's timeout, else
// human_timeout), whether it passed half of it, how many groups it asked
// before, and the groups whose members may answer now (its approval's
// by:, escalated: those asked so far; none: anyone).
type PendingReply struct {
	NodeID       string    `json:"node_id"`
	Why          string    `json:"why"`
	GraphNode    string    `json:"graph_node,omitempty"`
	WaitingSince time.Time `json:"waiting_since,omitzero"`
	Deadline     time.Time `json:"deadline,omitzero"`
	Overdue      bool      `json:"overdue,omitempty"`
	Escalations  int       `json:"escalations,omitempty"`
	Answering    []string  `json:"answering,omitempty"`
}

// Loop is a cycle the loop detector found.
type Loop struct {
	At      string   `json:"at"`
	Kind    string   `json:"kind"`
	Cycle   []string `json:"cycle"`
	Repeats int      `json:"repeats"`
}
