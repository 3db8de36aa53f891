package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// A run has one of two shapes: the free-form loop (step.go) or a graph
// walk (graph.go). Everything that differs between them is a method of
// the shape, so the rest of the run asks the shape instead of checking
// which one it is.

// stepShape chooses and takes a run's steps, and answers for the rest of
// the run what differs between the shapes.
type stepShape interface {
	// begin takes up what the previous generation carried. resumes: the
	// next step finishes one the run continued as new in, so it is not a
	// new step (policies.NextMove is not asked before it).
	begin(ctx workflow.Context) (resumes bool, t taken)
	// step takes the next step, for the engine to settle.
	step(ctx workflow.Context) taken
	// after chooses what comes next once the engine settled the step
	// (settle), esc being the rung that answered its loop; done: the run
	// ended there.
	after(ctx workflow.Context, e stepEnd, esc *escalation) (done bool, res *AgentResult, err error)
	// graph says which shape it is, for the rules that take it as an
	// input (policies.NextMove, ladder.Escape.RollBack).
	graph() bool
	// fromStart sets the run to go on from its start: a conversation's
	// turn begins or is rolled back.
	fromStart()
	// explore is the ladder's explore rung for loop, noted on escalation
	// node escID: a graph leaves the cycle by its exit, the free-form
	// loop blocks the loop's calls.
	explore(escID string, loop *policies.Loop, where string, exit policies.CycleExit) *escalation
	// rolledBack says where the run picks up after a rollback to before
	// (the last event before the loop), edge being the edge into it and
	// first the loop's first node.
	rolledBack(before policies.EventRef, edge string, first *Node) string
	// offersHandoffTool: the model may be offered the handoff tool (a
	// graph hands over by its nodes, never by a model's call).
	offersHandoffTool() bool
	// editBeforeRung: an edit that came while a rung answered the step's
	// loop is carried out before the rung's outcome.
	editBeforeRung(ctx workflow.Context) bool
	// loopScope is the graph a loop goes round (nil: a free-form run,
	// whose loops are of calls, not of places).
	loopScope() *config.Graph
	// nodeWrite is the State path graph node writes (a tool node's
	// output_path), nil for none and in a free-form run.
	nodeWrite(node string) *refs.Path
	// humanApproval is a graph human node's approval block: who may reply
	// and by when (none in a free-form run).
	humanApproval(node string) config.Approval
	// interruptOutranksCancel: an edit waiting when the run is cancelled
	// ends the step for the edit instead of the cancellation.
	interruptOutranksCancel(ctx workflow.Context) bool
}

// taken is a step a shape took: its end, for the engine to settle, or,
// with no end, the step ended by itself (done: the run ended, with res or
// err; a reply without calls gives the output itself, a message cut in
// before the reply asks nothing).
type taken struct {
	end  *stepEnd
	done bool
	res  *AgentResult
	err  error
}

// ended is a step that ended by itself.
func ended(done bool, res *AgentResult, err error) taken {
	return taken{done: err != nil || done, res: res, err: err}
}

// shapeOf is the shape of the run r holds.
func shapeOf(r *runner) stepShape {
	if r.run.Spec.Agent.Graph != nil {
		return &graphShape{r: r}
	}
	return freeForm{r: r}
}

func (freeForm) fromStart() {}

func (g *graphShape) fromStart() { g.r.run.GraphAt = g.r.run.Spec.Agent.Graph.Start }

func (freeForm) offersHandoffTool() bool    { return true }
func (*graphShape) offersHandoffTool() bool { return false }

// interruptOutranksCancel: a free-form run recorded before cancel-first
// that was cancelled with an edit waiting ended the step for the edit
// (whose continue-as-new the cancellation then refused); a graph run, and
// now both, ends cancelled. Asked only when both happen.
func (freeForm) interruptOutranksCancel(ctx workflow.Context) bool {
	return versionOf(ctx, versionCancelFirst, 1) < 1
}

func (*graphShape) interruptOutranksCancel(workflow.Context) bool { return false }

// editBeforeRung: a graph run always carried the edit out first; a
// free-form run recorded before one-settle took the rung's outcome first.
func (freeForm) editBeforeRung(ctx workflow.Context) bool {
	return versionOf(ctx, versionOneSettle, 1) >= 1
}

func (*graphShape) editBeforeRung(workflow.Context) bool { return true }

// explore blocks the loop's exact calls: the model is told to change them.
func (f freeForm) explore(escID string, loop *policies.Loop, _ string, _ policies.CycleExit) *escalation {
	blocked := describeCalls(f.r.escape().Block(loop))
	f.r.noteEscalation(escID, fmt.Sprintf("You are repeating the same calls in a loop (%s). Those exact calls are now blocked: change the arguments, use another tool, or finish with what you have.", strings.Join(blocked, "; ")))
	return &escalation{}
}

// explore goes straight to the exit's target: its source is a node of the
// cycle, visited in the loop's last repetition.
func (g *graphShape) explore(escID string, _ *policies.Loop, where string, exit policies.CycleExit) *escalation {
	note := fmt.Sprintf("leaving the cycle: %s -> %s", exit.From, exit.To)
	if exit.From != where {
		note += fmt.Sprintf(" (the loop was seen at %s; the way out is at %s)", where, exit.From)
	}
	g.r.noteEscalation(escID, note)
	g.r.escape().Explore() // away until real progress (ladder/struggle.go)
	return &escalation{goTo: exit.To}
}

// rolledBack: the free-form loop asks the model again from before the
// loop's first step.
func (freeForm) rolledBack(_ policies.EventRef, _ string, first *Node) string {
	return fmt.Sprintf("back to before step %d; the loop's steps are invalidated", first.Step)
}

// rolledBack: the walk picks the next edge from the node before the loop,
// with its recorded outcome, without the edge into the loop.
func (g *graphShape) rolledBack(before policies.EventRef, edge string, _ *Node) string {
	run := g.r.run
	resume := &resumePoint{Node: before.Where, OK: true}
	if n := run.node(before.NodeID); n != nil && n.Status == signals.StatusFailed {
		resume.OK, resume.Error = false, n.Error
	}
	run.ResumeFrom = resume
	return fmt.Sprintf("back to %s, without the edge %s", before.Where, edge)
}

func (freeForm) nodeWrite(string) *refs.Path { return nil }

func (g *graphShape) nodeWrite(node string) *refs.Path {
	if n, ok := g.r.run.Spec.Agent.Graph.Nodes[node]; ok && n.OutputPath != "" {
		if p, err := refs.ParseOutputPath(n.OutputPath); err == nil {
			return &p
		}
	}
	return nil
}

func (freeForm) humanApproval(string) config.Approval { return config.Approval{} }

func (g *graphShape) humanApproval(node string) config.Approval {
	if g.r.run.Spec.Agent.Graph == nil {
		return config.Approval{} // the spec was swapped for a handoff's; the run continues as new
	}
	return g.r.run.Spec.Agent.Graph.Nodes[node].Approval
}

func (freeForm) loopScope() *config.Graph      { return nil }
func (g *graphShape) loopScope() *config.Graph { return g.r.run.Spec.Agent.Graph }
