package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// The life of a call. Every tool call, whether the model asked for it or a
// graph tool node makes it, walks the same stages, one file each; a rule a
// stage applies is a pure function of policies/ or policies/repair:
//
//	resolve   stage_resolve.go   references (†state.x) replaced by their values
//	validate  stage_validate.go  the arguments against the tool's schema
//	repair    stage_repair.go    rule repair, then one focused model request
//	block     stage_block.go     exact calls the loop ladder blocked
//	approval  stage_approval.go  a person approves, changes, replaces or rejects
//	route     stage_route.go     breakers: the tool, its fallback, or no call
//	ledger    stage_ledger.go    the effect ledger: an identical write after an edit is not run twice
//	run       stage_run.go       the tool activity, with the tool's retry policy
//	refusal   stage_refusal.go   arguments the tool refused, repaired and re-issued
//	settle    stage_settle.go    the trace node, State write, breaker and last error
//
// Every wait (a repair request, a person's decision, the tool itself) is a
// future on the pipeline's selector, so no call holds up another; the loop
// detector reads each settled call as a policies.CallEvent.

// stepCall is one call walking the pipeline.
type stepCall struct {
	nodeID string
	name   string // the tool the call names (the model's text for free-form calls)
	tool   config.Tool
	where  string     // the graph node that made the call; "" for the model's calls
	args   any        // decoded arguments without _outputPath, references unresolved
	write  *refs.Path // the _outputPath (or output_path), if any
	reads  []refs.Path
	deps   []int
	final  bool // final_output: runs once every other call has finished
	// handoff: the reserved handoff tool, settled like final_output (its
	// ask, checked before the step's calls ran).
	handoff *handoffAsk
	// Where the call is in its life.
	started bool
	done    bool
	// held: the call waits for approval and the run continues as new
	// with it (package waiting); its node stays awaiting_approval.
	held bool
	// keyOf is the earlier call whose idempotency key this one takes: the
	// same write, tried before an edit invalidated it (stage_ledger.go).
	keyOf string
	// fallback is the tool routing sent the call to while the breaker of
	// the tool it names is open ("" when none): fallback.go.
	fallback string
	// What happened: the arguments it ran with, and how it ended.
	resolved json.RawMessage
	errText  string
	class    policies.Class
	// noOp: a write that answered as its previous try did (noop.go).
	noOp bool
}

// pipeline runs calls through the stages on one selector; running counts
// the futures on it: each AddFuture of a stage adds one, and its callback
// takes it off (the selector may also wait on a streaming model request).
type pipeline struct {
	r *runner
	// budget is the run's, which each call asks before it runs and
	// counts once it does.
	budget  *budget.Budget
	sel     workflow.Selector
	running int
	// inFlight counts the tool activities running; past the agent's
	// calls_in_flight, calls wait in line (queued) for one to end.
	inFlight int
	queued   []func()
}

// drive runs calls to their end: each call whose dependencies have
// finished enters the pipeline, side by side with the others, and the
// selector takes whichever wait ends first. A final_output call settles
// once every other call is done; its output, when valid, is the answer.
func (r *runner) drive(ctx workflow.Context, calls []*stepCall) (final *finalCall, stopErr error) {
	return r.driveOn(ctx, r.newPipeline(ctx), calls)
}

func (r *runner) newPipeline(ctx workflow.Context) *pipeline {
	return &pipeline{r: r, budget: r.budget(), sel: workflow.NewSelector(ctx)}
}

// driveOn drives calls on a pipeline where calls may be under way already
// (streamed calls: stream.go); it returns once every one of them is done.
func (r *runner) driveOn(ctx workflow.Context, p *pipeline, calls []*stepCall) (final *finalCall, stopErr error) {
	for {
		for _, c := range calls {
			if c.started || c.done || !depsDone(c, calls) {
				continue
			}
			if r.life.Interrupting() || r.life.Switching() {
				break
			}
			c.started = true
			if c.handoff != nil {
				r.settleHandoffCall(ctx, c)
				continue
			}
			if c.final {
				f, err := r.settleFinal(ctx, c)
				c.done = true
				if f != nil && final == nil {
					final = f // a later, invalid final_output does not undo it
				}
				if err != nil {
					stopErr = err
				}
				continue
			}
			p.resolve(ctx, c)
		}
		if p.running == 0 {
			break
		}
		p.sel.Select(ctx)
	}
	// Every call gets an answer, even one that could not run; but a call
	// the next generation takes up again (package waiting) stays
	// pending.
	for _, c := range calls {
		if !c.done && !r.life.Switching() {
			c.errText, c.class, c.done = neverRanText, policies.Structural, true
			r.notRunNode(ctx, c.nodeID, life.NeverRan, "")
		}
	}
	return final, stopErr
}

// neverRanText is what a call says that waited on calls that did not
// finish (an edit interrupted the step).
const neverRanText = "never ran: it waits on calls that did not finish"

// async runs work in a coroutine and then, on the pipeline's selector,
// next. Work that panicked (the run stops: guard.go) has no next: its
// call never ran.
func (p *pipeline) async(ctx workflow.Context, work func(workflow.Context), next func()) {
	fut, set := workflow.NewFuture(ctx)
	panicked := false
	p.r.guard.goGuarded(ctx, "a stage of a call", func(g workflow.Context) {
		work(g)
		set.Set(nil, nil)
	}, func() { panicked = true; set.Set(nil, nil) })
	p.running++
	p.sel.AddFuture(fut, func(workflow.Future) {
		p.running--
		if !panicked {
			next()
		}
	})
}

func depsDone(c *stepCall, calls []*stepCall) bool {
	for _, d := range c.deps {
		if !calls[d].done {
			return false
		}
	}
	return true
}
