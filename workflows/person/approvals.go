package person

import (
	"sort"
	"time"

	"github.com/unstuck-dev/unstuck/signals"
)

// approvals are the calls waiting for a person's decision, each with the
// tool to approve (the call's, or a fallback standing in), the decisions
// that landed and the waiting code has not taken yet, and the approvals
// of a call that needs more than one person (approvers: N) before the
// N-th.
type approvals struct {
	tools     map[string]string
	decisions map[string]*signals.ApproveRequest
	// dues and levels are each waiting call's deadline and escalation
	// level (approval.then: escalate).
	dues    map[string]due
	levels  map[string]int
	earlier map[string][]*signals.ApproveRequest
}

// wait lists call id as waiting for approval of tool; end takes it off,
// with the approvals it had short of approvers: N.
func (a *approvals) wait(id, tool string) {
	if a.tools == nil {
		a.tools = map[string]string{}
	}
	a.tools[id] = tool
}
func (a *approvals) end(id string) {
	delete(a.tools, id)
	delete(a.dues, id)
	delete(a.levels, id)
	delete(a.earlier, id)
}

// waiting says whether any call waits; toolOf whether id does, for which
// tool.
func (a *approvals) waiting() bool { return len(a.tools) > 0 }
func (a *approvals) toolOf(id string) (string, bool) {
	t, ok := a.tools[id]
	return t, ok
}

// ids are the waiting calls, in order (the run's commands and carried
// state must not depend on a map's order).
func (a *approvals) ids() []string {
	ids := make([]string, 0, len(a.tools))
	// Collecting keys, sorted below.
	//workflowcheck:ignore
	for id := range a.tools {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// decide lands a decision for id; decision peeks at it; take answers it
// once.
func (a *approvals) decide(id string, d *signals.ApproveRequest) {
	if a.decisions == nil {
		a.decisions = map[string]*signals.ApproveRequest{}
	}
	a.decisions[id] = d
}
func (a *approvals) decision(id string) *signals.ApproveRequest { return a.decisions[id] }
func (a *approvals) take(id string) *signals.ApproveRequest {
	d := a.decisions[id]
	delete(a.decisions, id)
	return d
}

// due is when the wait of a call began and when it times out, for status.
type due struct{ since, deadline time.Time }

// begin notes that call id's wait (at its escalation level) began at
// since and times out at deadline; dueOf answers it (ok false: not noted).
func (a *approvals) begin(id string, since, deadline time.Time) {
	if a.dues == nil {
		a.dues = map[string]due{}
	}
	a.dues[id] = due{since, deadline}
}
func (a *approvals) dueOf(id string) (due, bool) {
	d, ok := a.dues[id]
	return d, ok
}

// level is how many times call id's approval was escalated; escalate
// counts one more; setLevel puts back one a generation before counted.
func (a *approvals) level(id string) int { return a.levels[id] }
func (a *approvals) escalate(id string)  { a.setLevel(id, a.levels[id]+1) }
func (a *approvals) setLevel(id string, level int) {
	if a.levels == nil {
		a.levels = map[string]int{}
	}
	a.levels[id] = level
}

// approve lands one person's approval of id, short of the decision;
// earlierOf are those of id; approvers who gave them; takeEarlier
// answers them once.
func (a *approvals) approve(id string, d *signals.ApproveRequest) {
	if a.earlier == nil {
		a.earlier = map[string][]*signals.ApproveRequest{}
	}
	a.earlier[id] = append(a.earlier[id], d)
}
func (a *approvals) earlierOf(id string) []*signals.ApproveRequest { return a.earlier[id] }
func (a *approvals) approvers(id string) []string {
	var by []string
	for _, d := range a.earlier[id] {
		by = append(by, d.By)
	}
	return by
}
func (a *approvals) takeEarlier(id string) []*signals.ApproveRequest {
	d := a.earlier[id]
	delete(a.earlier, id)
	return d
}
