package workflows

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/ladder"
)

// WorkflowName is the workflow type users start, and TaskQueue its default
// task queue.
const (
	WorkflowName = "AgentWorkflow"
	TaskQueue    = "agents"
)

// AgentInput starts a run (docs/contract.md "Workflow").
type AgentInput struct {
	Agent string `json:"agent"`
	Task  string `json:"task"`
	// By is who gave the task (a conversation's first message), kept on
	// the task node as a later message's author is.
	By           string          `json:"by,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	OutputSchema map[string]any  `json:"output_schema,omitempty"`
	From         *ForkFrom       `json:"from,omitempty"`
	// Continued carries the whole run state across continue-as-new; users
	// never set it. A large run travels gzip-compressed in ContinuedGzip.
	Continued     *Run   `json:"continued,omitempty"`
	ContinuedGzip []byte `json:"continued_gzip,omitempty"`
	// Unknown are fields of the input that are none of the above, in the
	// order written: a first run refuses them (docs/contract.md).
	Unknown []string `json:"-"`
}

// inputFields are the fields AgentInput knows.
var inputFields = []string{"agent", "task", "by", "input", "output_schema", "from", "continued", "continued_gzip"}

// UnmarshalJSON decodes the input and notes the fields it does not know,
// so a typo ("outputSchema") is refused instead of silently ignored.
func (in *AgentInput) UnmarshalJSON(b []byte) error {
	type plain AgentInput // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*in = AgentInput(p)
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil // not an object: decoding above answered already
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if !slices.Contains(inputFields, key) {
			in.Unknown = append(in.Unknown, key)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// ForkFrom starts a run as a fork of another run at one of its nodes.
type ForkFrom struct {
	WorkflowID string `json:"workflow_id"`
	// RunID names one run of the workflow (a generation); empty: its
	// latest. A long run's archived nodes are forked from the generation
	// that holds them.
	RunID  string          `json:"run_id,omitempty"`
	NodeID string          `json:"node_id"`
	Edit   json.RawMessage `json:"edit,omitempty"`
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
	// EscalationsDropped: the run climbed this many rungs before those
	// listed (only the latest policies.KeepRecent are kept); absent when
	// all are listed.
	EscalationsDropped int    `json:"escalations_dropped,omitempty"`
	Reason             string `json:"reason,omitempty"`
	LastError          string `json:"last_error,omitempty"`
	// Spend is what the run spent (status.spend), when it spent anything.
	Spend *signals.SpendStatus `json:"spend,omitempty"`
}

// Escalation is one rung of the escalation ladder a run climbed.
type Escalation = ladder.Escalation
