package workflows

import (
	"encoding/json"
)

// WorkflowName is the workflow type users start, and TaskQueue its default
// task queue.
const (
	WorkflowName = "AgentWorkflow"
	TaskQueue    = "agents"
)

// AgentInput starts a run (CONTRACT.md "Workflow").
type AgentInput struct {
	Agent        string          `json:"agent"`
	Task         string          `json:"task"`
	Input        json.RawMessage `json:"input,omitempty"`
	OutputSchema map[string]any  `json:"output_schema,omitempty"`
	From         *ForkFrom       `json:"from,omitempty"`
	// Continued carries the whole run state across continue-as-new; users
	// never set it. A large run travels gzip-compressed in ContinuedGzip.
	Continued     *Run   `json:"continued,omitempty"`
	ContinuedGzip []byte `json:"continued_gzip,omitempty"`
}

// ForkFrom starts a run as a fork of another run at one of its nodes.
type ForkFrom struct {
	WorkflowID string          `json:"workflow_id"`
	NodeID     string          `json:"node_id"`
	Edit       json.RawMessage `json:"edit,omitempty"`
}

// Result statuses.
const (
	ResultCompleted = "completed"
	ResultStopped   = "stopped"
)

// AgentResult is a completed run's result, and (with status "stopped", a
// reason and the last error) the details of an AgentStopped failure.
type AgentResult struct {
	Status      string          `json:"status"`
	Output      json.RawMessage `json:"output"`
	Agent       string          `json:"agent"`
	Steps       int             `json:"steps"`
	Generation  int             `json:"generation"`
	HandoffPath []string        `json:"handoff_path"`
	Escalations []Escalation    `json:"escalations"`
	Reason      string          `json:"reason,omitempty"`
	LastError   string          `json:"last_error,omitempty"`
}

// Escalation is one rung of the escalation ladder a run climbed.
type Escalation struct {
	At     string `json:"at"`
	Action string `json:"action"`
	Why    string `json:"why"`
}
