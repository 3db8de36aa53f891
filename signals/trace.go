package signals

import (
	"encoding/json"
	"time"
)

// NodeKind is what a trace node stands for.
type NodeKind string

// Node kinds of the trace graph.
const (
	KindTask       NodeKind = "task"
	KindRequest    NodeKind = "request"
	KindCall       NodeKind = "call"
	KindRepair     NodeKind = "repair"
	KindEscalation NodeKind = "escalation"
	KindApproval   NodeKind = "approval"
	KindEdit       NodeKind = "edit"
	KindHandoff    NodeKind = "handoff"
	KindHuman      NodeKind = "human"
	KindOutput     NodeKind = "output"
)

// NodeKinds are every kind, in the order CONTRACT.md lists them.
var NodeKinds = []NodeKind{KindTask, KindRequest, KindCall, KindRepair, KindEscalation, KindApproval, KindEdit, KindHandoff, KindHuman, KindOutput}

// NodeStatus is where a trace node is in its life.
type NodeStatus string

// Node statuses.
const (
	StatusPending          NodeStatus = "pending"
	StatusRunning          NodeStatus = "running"
	StatusAwaitingApproval NodeStatus = "awaiting_approval"
	StatusCompleted        NodeStatus = "completed"
	StatusFailed           NodeStatus = "failed"
	StatusInvalidated      NodeStatus = "invalidated"
	StatusSkipped          NodeStatus = "skipped"
)

// NodeStatuses are every status, in the order CONTRACT.md lists them.
var NodeStatuses = []NodeStatus{StatusPending, StatusRunning, StatusAwaitingApproval, StatusCompleted, StatusFailed, StatusInvalidated, StatusSkipped}

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
	Kind    NodeKind        `json:"kind"`
	Status  NodeStatus      `json:"status"`
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
