package workflows

import (
	"fmt"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// loopEvents are the events of the detected loop (its last repetitions),
// oldest first, and the index in r.run.Events where the loop began.
func (r *runner) loopEvents(loop *policies.Loop) ([]loopEvent, int) {
	n := loop.Period * loop.Repeats
	if n > len(r.run.Events) {
		n = len(r.run.Events)
	}
	begin := len(r.run.Events) - n
	return r.run.Events[begin:], begin
}

// loopStart is the index of the loop's first event; 0 means nothing came
// before it, so there is nowhere to roll back to.
func (r *runner) loopStart(loop *policies.Loop) int {
	_, begin := r.loopEvents(loop)
	return begin
}

// loopCalls are the trace nodes of one period of the loop that are calls.
func (r *runner) loopCalls(loop *policies.Loop) []*Node {
	events, _ := r.loopEvents(loop)
	if len(events) > loop.Period {
		events = events[len(events)-loop.Period:]
	}
	var out []*Node
	for _, e := range events {
		if n := r.run.node(e.NodeID); n != nil && n.Kind == signals.KindCall && n.Tool != "" {
			out = append(out, n)
		}
	}
	return out
}

// loopTool is the tool the loop is about: the first failing call of the
// cycle, else its first call.
func (r *runner) loopTool(loop *policies.Loop) string {
	calls := r.loopCalls(loop)
	for _, c := range calls {
		if c.Status == signals.StatusFailed {
			return c.Tool
		}
	}
	if len(calls) > 0 {
		return calls[0].Tool
	}
	return ""
}

// cycleNodes are the graph nodes of one period of the loop.
func (r *runner) cycleNodes(loop *policies.Loop) map[string]bool {
	events, _ := r.loopEvents(loop)
	if len(events) > loop.Period {
		events = events[len(events)-loop.Period:]
	}
	out := map[string]bool{}
	for _, e := range events {
		out[e.Where] = true
	}
	return out
}

// blockLoopCalls forbids the exact calls of the loop and says which.
func (r *runner) blockLoopCalls(loop *policies.Loop) []string {
	var described []string
	for _, c := range r.loopCalls(loop) {
		key := blockKey(c.Tool, c.Args)
		if !slices.Contains(r.run.Blocked, key) {
			r.run.Blocked = append(r.run.Blocked, key)
		}
		described = append(described, fmt.Sprintf("%s(%s)", c.Tool, shortText(string(c.Args), 120)))
	}
	return described
}

func (r *runner) isBlocked(tool string, args []byte) bool {
	return len(r.run.Blocked) > 0 && slices.Contains(r.run.Blocked, blockKey(tool, args))
}

func blockKey(tool string, args []byte) string {
	return callKey("", tool, args)
}

// rollback goes back to just before the loop began and continues as new
// from there: the loop's nodes are invalidated (the model no longer reads
// them) and, in a graph, the edge into the loop is excluded.
func (r *runner) rollback(ctx workflow.Context, escID string, loop *policies.Loop, where string) *escalation {
	events, begin := r.loopEvents(loop)
	first := r.run.node(events[0].NodeID)
	before := r.run.Events[begin-1]
	for i := range r.run.Nodes {
		n := &r.run.Nodes[i]
		if first != nil && n.Step >= first.Step && n.ID != escID && n.Kind != signals.KindEscalation && n.Kind != signals.KindTask {
			n.Status = signals.StatusInvalidated
		}
	}
	r.run.Frontier = []string{escID}
	r.run.Events = r.run.Events[:begin]
	if where != "" {
		edge := before.Where + "->" + events[0].Where
		if !slices.Contains(r.run.ExcludedEdges, edge) {
			r.run.ExcludedEdges = append(r.run.ExcludedEdges, edge)
		}
		resume := &resumePoint{Node: before.Where, OK: true}
		if n := r.run.node(before.NodeID); n != nil && n.Status == signals.StatusFailed {
			resume.OK, resume.Error = false, n.Error
		}
		r.run.ResumeFrom = resume
		r.noteEscalation(escID, fmt.Sprintf("back to %s, without the edge %s", before.Where, edge))
	} else {
		// The conversation shrank: the next request carries it whole.
		r.run.SentMessages, r.run.LastReplyID = 0, ""
		r.noteEscalation(escID, fmt.Sprintf("back to before step %d; the loop's steps are invalidated", first.Step))
	}
	return &escalation{continueAsNew: true}
}
