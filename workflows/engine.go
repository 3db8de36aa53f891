package workflows

import "go.temporal.io/sdk/workflow"

// The step engine drives both run shapes the same way: a shape takes up
// what the previous generation carried (an edited step, a wait, a
// rollback's resume point), then takes its steps one after another; an
// edit or a person's handoff waiting between steps is applied before the
// next, and before each new step the run continues as new when Temporal
// suggests it or stops at the step ceiling. How a step ends is shared
// too (step_end.go); a shape only chooses and takes its steps: the
// free-form loop by the model's reply (step.go), the graph walk by its
// edges (graph.go). A conversation's messages join it between steps, and
// its turns end in the output (turn.go), in both shapes.

// engine drives the run's shape and settles its steps. Made for each
// use, over the runner it is called on.
type engine struct{ r *runner }

func (r *runner) engine() engine { return engine{r} }

// runSteps is the engine: the shape's steps until one ends the run.
// Before each new step, it continues as new when Temporal suggests it, or
// stops at the step ceiling (beforeStep). An edit or a person's handoff
// that came during a step is applied once the step is over, whatever the
// step ended with: what the step did is recorded, and the edit decides
// what stays.
func (eng engine) runSteps(ctx workflow.Context) (*AgentResult, error) {
	r := eng.r
	s := r.shape
	if done, res, err := r.turns().resumeTurn(ctx); done {
		if r.turns().resumedEdit(ctx, err) {
			return nil, r.applyAndContinue(ctx)
		}
		return res, err
	}
	resumes, t := s.begin(ctx)
	done, res, err := eng.settleTaken(ctx, t)
	if r.life.Interrupting() && ctx.Err() == nil {
		return nil, r.applyAndContinue(ctx)
	}
	if done {
		return res, err
	}
	for {
		if r.life.Interrupting() {
			return nil, r.applyAndContinue(ctx)
		}
		if !resumes {
			r.chat().TakeQueued(ctx) // a step resumed from the generation before finishes first
			if ok, err := r.beforeStep(ctx, s.graph()); !ok {
				return nil, err
			}
		}
		resumes = false
		done, res, err := eng.settleTaken(ctx, s.step(ctx))
		if r.life.Interrupting() && ctx.Err() == nil {
			return nil, r.applyAndContinue(ctx)
		}
		if done {
			return res, err
		}
	}
}

// settleTaken ends a step the shape took: settled the same way in both
// shapes (settle), then the shape chooses what comes next (after).
func (eng engine) settleTaken(ctx workflow.Context, t taken) (bool, *AgentResult, error) {
	r := eng.r
	if t.end == nil {
		return t.done, t.res, t.err
	}
	done, res, esc, err := eng.settle(ctx, *t.end)
	if done || err != nil {
		return true, res, err
	}
	return r.shape.after(ctx, *t.end, esc)
}
