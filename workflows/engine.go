package workflows

import "go.temporal.io/sdk/workflow"

// The step engine drives both run shapes the same way: a shape takes up
// what the previous generation carried (an edited step, a wait, a
// rollback's resume point), then takes its steps one after another; an
// edit or a person's handoff waiting between steps is applied before the
// next. How a step ends is shared too (step_end.go); a shape only chooses
// and takes its steps: the free-form loop by the model's reply (step.go),
// the graph walk by its edges (graph.go).

// stepShape chooses and takes a run's steps.
type stepShape interface {
	// begin takes up what the previous generation carried; done: the run
	// ended there, with res or err.
	begin(ctx workflow.Context) (done bool, res *AgentResult, err error)
	// step takes the next step; done: the run ended with it.
	step(ctx workflow.Context) (done bool, res *AgentResult, err error)
}

// runSteps is the engine: the shape's steps until one ends the run.
func (r *runner) runSteps(ctx workflow.Context, s stepShape) (*AgentResult, error) {
	if done, res, err := s.begin(ctx); done {
		return res, err
	}
	for {
		if r.interrupting() {
			return nil, r.applyAndContinue(ctx)
		}
		if done, res, err := s.step(ctx); done {
			return res, err
		}
	}
}
