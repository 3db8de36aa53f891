package workflows

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// escalation is what a rung of the ladder decided for the walk.
type escalation struct {
	stopErr       error
	continueAsNew bool
	goTo          string // graph: the node to go to instead of the next edge
}

// detector is the run's loop detector, created on first use.
func (r *runner) detector() *policies.LoopDetector {
	if r.run.Detector == nil {
		p := r.run.Spec.Agent.Policies.Loop
		r.run.Detector = policies.NewLoopDetector(p.Window, p.Repeats)
	}
	return r.run.Detector
}

// breaker is a tool's circuit breaker, created on first use.
func (r *runner) breaker(tool string) *policies.Breaker {
	if r.run.Breakers == nil {
		r.run.Breakers = map[string]*policies.Breaker{}
	}
	b, ok := r.run.Breakers[tool]
	if !ok {
		p := r.run.Spec.Agent.Policies.Breaker
		b = policies.NewBreaker(p.Failures, p.Cooldown.D())
		r.run.Breakers[tool] = b
	}
	return b
}

// observe feeds one event to the loop detector and, when it completes a
// loop, climbs the escalation ladder.
func (r *runner) observe(ctx workflow.Context, where, nodeID, signature, key string, failed bool, class string) *escalation {
	r.run.Events = append(r.run.Events, loopEvent{Where: where, NodeID: nodeID})
	if w := r.run.Spec.Agent.Policies.Loop.Window; len(r.run.Events) > w {
		r.run.Events = r.run.Events[len(r.run.Events)-w:]
	}
	loop := r.detector().Observe(policies.LoopEvent{Signature: signature, Key: key, Failed: failed, Class: class})
	if loop == nil {
		if !failed && !slices.Contains(r.run.LastCycle, signature) {
			// Progress off the last loop: the next loop starts the ladder
			// from its first rung again.
			r.run.Ladder.Next = 0
		}
		return nil
	}
	r.run.LastCycle = loop.Cycle
	r.run.Loops = append(r.run.Loops, signals.Loop{At: nodeID, Kind: loop.Kind, Cycle: loop.Cycle, Repeats: loop.Repeats})
	return r.escalate(ctx, loop, where)
}

// escalate takes the next available rung of the agent's ladder. Each rung
// taken is an escalation node in the trace and an entry of the result.
func (r *runner) escalate(ctx workflow.Context, loop *policies.Loop, where string) *escalation {
	if r.run.Ladder.Rungs == nil {
		r.run.Ladder.Rungs = append([]string{}, r.run.Spec.Agent.Policies.Escalation...)
	}
	rung, ok := r.run.Ladder.Climb(func(rung string) bool { return r.rungAvailable(rung, loop, where) })
	if !ok {
		rung = policies.RungStop
	}
	why := fmt.Sprintf("%s loop of period %d repeated %d times", loop.Kind, loop.Period, loop.Repeats)
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindEscalation, Status: signals.StatusCompleted, Parents: r.run.Frontier,
		Args:      mustJSON(map[string]any{"rung": rung, "loop": loop}),
		GraphNode: where,
	}, Step: r.run.Step})
	id := node.ID
	r.run.Escalations = append(r.run.Escalations, Escalation{At: id, Action: rung, Why: why})

	switch rung {
	case policies.RungRetry:
		attempt := countRungs(r.run.Escalations, policies.RungRetry)
		d := policies.Backoff(attempt, time.Second, time.Minute, 2, workflow.GetInfo(ctx).WorkflowExecution.ID)
		r.noteEscalation(id, fmt.Sprintf("waiting %s before going on", d))
		if err := workflow.Sleep(ctx, d); err != nil {
			return &escalation{stopErr: r.cancelled(ctx, "")}
		}
		return &escalation{}
	case policies.RungSubstitute:
		tool := r.loopTool(loop)
		r.breaker(tool).Trip(workflow.Now(ctx))
		fb, _ := r.run.Spec.Tool(tool)
		r.noteEscalation(id, fmt.Sprintf("%s is replaced by its fallback %s while its breaker is open", tool, fb.Fallback))
		return &escalation{}
	case policies.RungExplore:
		if where != "" {
			to, _ := r.offCycleEdge(where, r.cycleNodes(loop))
			r.noteEscalation(id, fmt.Sprintf("leaving the cycle: %s -> %s", where, to))
			return &escalation{goTo: to}
		}
		blocked := r.blockLoopCalls(loop)
		r.noteEscalation(id, fmt.Sprintf("You are repeating the same calls in a loop (%s). Those exact calls are now blocked: change the arguments, use another tool, or finish with what you have.", strings.Join(blocked, "; ")))
		return &escalation{}
	case policies.RungRollback:
		return r.rollback(ctx, id, loop, where)
	case policies.RungHuman:
		reply, _, timedOut, err := r.awaitHuman(ctx, "the agent is stuck in a loop: "+why)
		if err != nil {
			return &escalation{stopErr: err}
		}
		if timedOut {
			return r.escalate(ctx, loop, where)
		}
		r.noteEscalation(id, "a person replied: "+reply.Text)
		return &escalation{}
	default:
		return &escalation{stopErr: r.stop(ctx, fmt.Sprintf("stuck in a %s (cycle %v); rungs tried: %s", why, loop.Cycle, strings.Join(rungNames(r.run.Escalations), ", ")))}
	}
}

// rungAvailable says whether a rung can act on this loop now.
func (r *runner) rungAvailable(rung string, loop *policies.Loop, where string) bool {
	switch rung {
	case policies.RungRetry, policies.RungHuman, policies.RungStop:
		return true
	case policies.RungSubstitute:
		t, ok := r.run.Spec.Tool(r.loopTool(loop))
		return ok && t.Fallback != "" && r.breaker(t.Name).State != policies.BreakerOpen
	case policies.RungExplore:
		if where != "" {
			_, ok := r.offCycleEdge(where, r.cycleNodes(loop))
			return ok
		}
		return len(r.loopCalls(loop)) > 0
	case policies.RungRollback:
		begin := r.loopStart(loop)
		if begin == 0 {
			return false
		}
		if where == "" {
			return true
		}
		// In a graph, the node before the loop needs another way out.
		before, first := r.run.Events[begin-1].Where, r.run.Events[begin].Where
		for _, e := range r.run.Spec.Agent.Graph.Edges {
			if e.From == before && e.To != first && !r.excluded(e) {
				return true
			}
		}
		return false
	default: // handoff: not in this version
		return false
	}
}

func (r *runner) noteEscalation(id, text string) {
	if n := r.run.node(id); n != nil {
		n.Output = mustJSON(text)
	}
}

func countRungs(es []Escalation, rung string) int {
	n := 0
	for _, e := range es {
		if e.Action == rung {
			n++
		}
	}
	return n
}

func rungNames(es []Escalation) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Action)
	}
	return out
}
