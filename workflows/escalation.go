package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/handoff"
	"github.com/unstuck-dev/unstuck/workflows/ladder"
)

// escalation is what a rung of the ladder decided for the walk.
type escalation struct {
	stopErr       error
	continueAsNew bool
	goTo          string // graph: the node to go to instead of the next edge
	// held: the human rung's wait, carried into the next generation
	// (rung_human.go).
	held *carriedRung
}

// escalate takes the next available rung of the agent's ladder
// (policies.ChooseRung; by the loop's error class, rungs.go) and carries
// it out. Each rung taken is an
// escalation node in the trace and an entry of the result.
func (r *runner) escalate(ctx workflow.Context, loop *policies.Loop, where string) *escalation {
	le := r.escape()
	var targets func() int
	if r.handoffs().On() {
		targets = r.handoffs().Targets
	}
	rung, situation, exit := le.Climb(ctx, loop, where, targets)
	r.count(ctx, MetricRungsTaken, 1, "rung", rung)
	why := fmt.Sprintf("%s loop of period %d repeated %d times", loop.Kind, loop.Period, loop.Repeats)
	if loop.Kind == policies.LoopStalled {
		why = fmt.Sprintf("stalled loop: %d events round the same nodes since the last loop, no new node reached", loop.Period)
	}
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindEscalation, Status: signals.StatusCompleted, Parents: r.run.Frontier,
		Args:      mustJSON(map[string]any{"rung": rung, "loop": loop}),
		GraphNode: where,
	}, Step: r.run.Step})
	id := node.ID
	le.RecordEscalation(ctx, Escalation{At: id, Action: rung, Why: why})
	r.showDetails(ctx)

	switch rung {
	case policies.RungRetry:
		attempt := le.RetryAttempt()
		d := policies.Backoff(attempt, time.Second, time.Minute, 2, workflow.GetInfo(ctx).WorkflowExecution.ID)
		r.noteEscalation(id, fmt.Sprintf("waiting %s before going on", d))
		if err := workflow.NewTimerWithOptions(ctx, d, workflow.TimerOptions{Summary: backoffSummary(attempt, situation.LoopTool)}).Get(ctx, nil); err != nil {
			return &escalation{stopErr: r.cancelled(ctx, "")}
		}
		return &escalation{}
	case policies.RungSubstitute:
		tool := situation.LoopTool
		le.Breaker(tool).Trip(workflow.Now(ctx))
		fb, _ := r.run.Spec.Tool(tool)
		r.noteEscalation(id, fmt.Sprintf("%s is replaced by its fallback %s while its breaker is open", tool, fb.Fallback))
		return &escalation{}
	case policies.RungExplore:
		return r.shape.explore(id, loop, where, exit)
	case policies.RungRollback:
		return r.rollback(ctx, id, loop)
	case policies.RungRepair:
		return r.repairLoop(ctx, id, loop, where)
	case policies.RungHandoff:
		reason := "complexity_exceeded"
		if situation.LoopTool != "" {
			reason = "tool_failure"
		}
		to, res, err := r.handoffs().HandOff(ctx, handoff.Ask{
			Trigger: handoff.TriggerLadder, Reason: reason, Parents: []string{id},
			Summary:   fmt.Sprintf("the agent %s is stuck: a %s (cycle %v)", r.run.Spec.Agent.Name, why, loop.Cycle),
			Suggested: "finish the task another way than the repeating calls",
		})
		if err != nil {
			return &escalation{stopErr: err}
		}
		if to == "" {
			r.noteEscalation(id, r.run.node(res.NodeID).Error)
			return r.escalate(ctx, loop, where)
		}
		r.noteEscalation(id, "handed over to "+to)
		return &escalation{continueAsNew: true}
	case policies.RungHuman:
		return humanRung{r: r, esc: id, loop: loop, where: where}.wait(ctx, why)
	default:
		reason := fmt.Sprintf("stuck in a %s (cycle %v); rungs tried: %s", why, loop.Cycle, le.RungsTried())
		r.noteEscalation(id, "the run stops: "+reason)
		return &escalation{stopErr: r.stop(ctx, reason)}
	}
}

// describeCalls says which calls a rung blocked (ladder.Escape.Block).
func describeCalls(calls []ladder.Node) []string {
	var described []string
	for _, c := range calls {
		described = append(described, fmt.Sprintf("%s(%s)", c.Tool, shortText(string(c.Args), 120)))
	}
	return described
}

// rollback goes back to just before the loop began and continues as new
// from there: the loop's nodes are invalidated (the model no longer reads
// them) and, in a graph, the edge into the loop is excluded.
func (r *runner) rollback(ctx workflow.Context, escID string, loop *policies.Loop) *escalation {
	firstEvent, before, edge := r.escape().RollBack(loop)
	first := r.run.node(firstEvent.NodeID)
	r.run.RolledBack(escID, workflow.Now(ctx), func(n *Node) bool {
		record := n.Kind == signals.KindEdit || (n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped)
		return first != nil && n.Step >= first.Step && n.ID != escID && n.Kind != signals.KindEscalation && n.Kind != signals.KindTask && !record
	})
	// The conversation shrank: the next request carries it whole.
	r.run.sendWhole()
	r.noteEscalation(escID, r.shape.rolledBack(before, edge, first))
	return &escalation{continueAsNew: true}
}

func (r *runner) noteEscalation(id, text string) {
	if n := r.run.node(id); n != nil {
		n.Output = mustJSON(text)
	}
}
