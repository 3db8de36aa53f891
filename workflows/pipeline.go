package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/handoff"
	"github.com/unstuck-dev/unstuck/workflows/ledger"
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
//	outage    stage_outage.go    a tool that is down: the call waits it out, then is routed again
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
	handoff *handoff.Ask
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
	// routed is the tool the call was routed from (the one it names, or
	// a person's replacement): a call that waited out an outage is routed
	// from it again (stage_outage.go); waited: it did, at least once.
	routed config.Tool
	waited bool
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
	budget *budget.Budget
	// effects is the run's effect ledger, which a write asks before it
	// runs (stage_ledger.go).
	effects *ledger.Ledger
	sel     workflow.Selector
	running int
	// inFlight counts the tool activities running; past the agent's
	// calls_in_flight, calls wait in line (queued) for one to end.
	inFlight int
	queued   []func()
	// stream is the request whose reply's calls this pipeline runs, when
	// it started some of them while the reply streamed (stream.go).
	stream *streaming
}

// newPipeline is a pipeline of its own for calls of the run r.
func newPipeline(ctx workflow.Context, r *runner) *pipeline {
	return &pipeline{r: r, budget: r.budget(), effects: r.ledger(), sel: workflow.NewSelector(ctx)}
}

// replyPipeline is the pipeline the calls of reply reqID walk: the one
// that started some of them while the reply streamed, or a new one.
func replyPipeline(ctx workflow.Context, r *runner, reqID string) *pipeline {
	s := r.requests().streamOf(reqID)
	if s == nil {
		return newPipeline(ctx, r)
	}
	s.p.stream = s
	return s.p
}

// drive runs calls to their end: each call whose dependencies have
// finished enters the pipeline, side by side with the others (and with
// calls under way on it already: stream.go), and the selector takes
// whichever wait ends first. A final_output call settles once every other
// call is done; its output, when valid, is the answer. It returns once
// every one of calls is done.
func (p *pipeline) drive(ctx workflow.Context, calls []*stepCall) (final *finalCall, stopErr error) {
	r := p.r
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
				settleHandoffCall(ctx, r.handoffs(), c)
				continue
			}
			if c.final {
				f, err := p.settleFinal(ctx, c)
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
