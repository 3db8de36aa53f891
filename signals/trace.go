package signals

import (
	"encoding/json"
	"time"
)

// Node kinds of the trace graph.
const (
	KindTask       = "task"
	KindRequest    = "request"
	KindCall       = "call"
	KindRepair     = "repair"
	KindEscalation = "escalation"
	KindApproval   = "approval"
	KindEdit       = "edit"
	KindHandoff    = "handoff"
	KindHuman      = "human"
	KindOutput     = "output"
)

// Node statuses.
const (
	StatusPending          = "pending"
	StatusRunning          = "running"
	StatusAwaitingApproval = "awaiting_approval"
	StatusCompleted        = "completed"
	StatusFailed           = "failed"
	StatusInvalidated      = "invalidated"
	StatusSkipped          = "skipped"
)

// Trace is the answer to the trace query: every node of the run so far,
// in the order they were created.
type Trace struct {
	Generation int    `json:"generation"`
	Nodes      []Node `json:"nodes"`
}

// Node is one thing that happened in a run: the task, a model request, a
// tool call, a repair, an escalation, an approval, an edit, a handoff, a
// human step or the output. Ids are unique within the workflow id and
// survive continue-as-new.
type Node struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Status  string          `json:"status"`
	Parents []string        `json:"parents"`
	Agent   string          `json:"agent"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
	Error   string          `json:"error,omitempty"`
	At      time.Time       `json:"at"`
	// GraphNode names the node of an explicit graph this node visited (an
	// addition to CONTRACT.md's fields, absent for free-form runs).
	GraphNode string `json:"graph_node,omitempty"`
}
