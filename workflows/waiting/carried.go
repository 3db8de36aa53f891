package waiting

import (
	"maps"
	"slices"
	"time"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/budget"
)

// Carried is what a run that continued as new while waiting still waits
// for, in the run's JSON (the run adds the ladder's human rung's own wait
// beside it).
type Carried struct {
	// Since is when each call (by node id) began to wait for approval, or
	// the human node for a reply: the deadline is kept.
	Since map[string]time.Time `json:"since,omitempty"`
	// Decisions are approvals accepted and not taken yet, by call node.
	Decisions map[string]*signals.ApproveRequest `json:"decisions,omitempty"`
	// Escalations are how many groups each call's approval asked before
	// the one it waits for (approval.then: escalate), by call node.
	Escalations map[string]int `json:"escalations,omitempty"`
	// Approved are approvals accepted short of a call's approvers: N, by
	// call node, in order.
	Approved map[string][]*signals.ApproveRequest `json:"approved,omitempty"`
	// Human is the human node a person agent waits at; Reply a reply to
	// it accepted and not taken yet.
	Human string                `json:"human,omitempty"`
	Reply *signals.ReplyRequest `json:"reply,omitempty"`
	// Budget is the budget rung the run waits at (its node and crossing,
	// and a decision accepted and not taken yet).
	Budget *budget.Carried `json:"budget,omitempty"`
}

// waitingNodes are the nodes c waits at, in order: the commands taking
// them up must not depend on the map's order.
func (c *Carried) waitingNodes() []string {
	// Sorted: the map's order does not reach the result.
	//workflowcheck:ignore
	return slices.Sorted(maps.Keys(c.Since))
}
