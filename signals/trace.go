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
	// KindSummary is the model's summary of the oldest turns of a
	// conversation compacted to stay inside the model's token window
	// (policies.context); an unstuck extension of the contract's kinds.
	KindSummary NodeKind = "summary"
	// KindBudget is the budget rung: a request or call that would cross a
	// limit of policies.budget, what a person decided (raise or stop), or
	// the stop (issue 28); an unstuck extension.
	KindBudget NodeKind = "budget"
)

// NodeKinds are every kind, in the order docs/contract.md lists them, then
// unstuck's own.
var NodeKinds = []NodeKind{KindTask, KindRequest, KindCall, KindRepair, KindEscalation, KindApproval, KindEdit, KindHandoff, KindHuman, KindOutput, KindSummary, KindBudget}

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

// Settled: the node is done (completed, failed, invalidated or skipped)
// and will not change unless an edit or a rollback changes it.
func (s NodeStatus) Settled() bool {
	return s != StatusPending && s != StatusRunning && s != StatusAwaitingApproval
}

// NodeStatuses are every status, in the order docs/contract.md lists them.
var NodeStatuses = []NodeStatus{StatusPending, StatusRunning, StatusAwaitingApproval, StatusCompleted, StatusFailed, StatusInvalidated, StatusSkipped}

// Trace is the answer to the trace query: the nodes of the run so far, in
// the order they were created. Next is set when the answer is a page and
// more nodes remain: ask again with TracePage{Since: Next}.
type Trace struct {
	Generation int    `json:"generation"`
	Nodes      []Node `json:"nodes"`
	Next       string `json:"next,omitempty"`
	// Archived is set when a long run no longer carries its oldest nodes:
	// they are answered by the trace query of the run it names.
	Archived *ArchivedNodes `json:"archived,omitempty"`
}

// ArchivedNodes says where the nodes a long run no longer carries are: the
// nodes through Through, and the invalidated nodes up to Last (Nodes of
// them in all), are answered by the trace query of run RunID of workflow
// WorkflowID, a closed generation of the run (or the run a fork started
// from), whose own answer may name older ones. Nodes the run still reads
// (the task, handoffs) are in both answers.
type ArchivedNodes struct {
	Nodes      int    `json:"nodes"`
	Through    string `json:"through,omitempty"`
	Last       string `json:"last"`
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
	Generation int    `json:"generation"`
}

// TracePage is the optional argument of the trace query
// (`{"since": "<node id>", "limit": 500}`): the nodes after Since
// (exclusive, in trace order; empty: from the first node), at most Limit
// of them (0: DefaultTracePageLimit; capped at MaxTracePageLimit), and
// never more than MaxQueryAnswerBytes of JSON (but always at least one
// node, so paging makes progress). Without an argument the query answers
// every node, unless they exceed MaxQueryAnswerBytes: then it answers the
// first page, with Next.
type TracePage struct {
	Since string `json:"since,omitempty"`
	Limit int    `json:"limit,omitempty"`
	// ChangedAfter keeps only the nodes added or changed after this time
	// (a node's at is when it last changed), in trace order: a follower of
	// a run reads what changed since what it last read.
	ChangedAfter *time.Time `json:"changed_after,omitempty"`
}

// Page sizes of the trace query.
const (
	DefaultTracePageLimit = 500
	MaxTracePageLimit     = 5000
)

// MaxQueryAnswerBytes bounds the JSON of one page of a query answer (the
// trace's nodes, the model context's messages). Temporal refuses query
// results over its blob size limit (2 MB by default, and gRPC's 4 MB
// message size behind it), and then the query fails for good however often
// it is asked; 1 MiB keeps a page well under that with room for the
// envelope, the payload's metadata and a node larger than its estimate.
// A single node or message over the bound is still answered, alone.
const MaxQueryAnswerBytes = 1 << 20

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
	// addition to docs/contract.md's fields, absent for free-form runs).
	GraphNode string `json:"graph_node,omitempty"`
	// Archived: the node was read from a closed generation of a long run
	// (the readers of the whole trace set it; a run's own answer never
	// does).
	Archived bool `json:"archived,omitempty"`
	// By, Reason, Before and After are an edit node's audit: who changed
	// the node it names, why, and its value before and after.
	By     string          `json:"by,omitempty"`
	Reason string          `json:"reason,omitempty"`
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
	// ReusedFrom: a write re-issued after an edit that the effect ledger
	// answered with the recorded result of this earlier call, instead of
	// running it twice (an addition to docs/contract.md's fields).
	ReusedFrom string `json:"reused_from,omitempty"`
	// FallbackOf: a call served by a fallback names the tool the call
	// asked for here, and the tool that ran in Tool.
	FallbackOf string `json:"fallback_of,omitempty"`
	// From and To are a handoff node's agents (the one handing over, the
	// one that took the run); Refused the candidates passed over, and why.
	// Its Reason is the handoff's reason.
	From    string           `json:"from,omitempty"`
	To      string           `json:"to,omitempty"`
	Refused []HandoffRefusal `json:"refused,omitempty"`
	// Streamed: a call the run took while the model's reply still
	// streamed (stream_calls), started before the reply ended if it waited
	// on nothing (an addition to docs/contract.md's fields).
	Streamed bool `json:"streamed,omitempty"`
	// Note says something the run settled about the node that its status
	// and error do not: a streamed call the whole reply did not ask for.
	Note string `json:"note,omitempty"`
	// Check is how a call's result was checked (its tool's result_schema
	// or verify), and CheckOf marks a read-back: the call it checks (both
	// additions to docs/contract.md's fields).
	Check   *Check `json:"check,omitempty"`
	CheckOf string `json:"check_of,omitempty"`
}
