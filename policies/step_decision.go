package policies

import "fmt"

// Move is what the step loop does next, decided before each step.
type Move string

// The moves of NextMove.
const (
	MoveStep          Move = "step"            // take the next step
	MoveContinueAsNew Move = "continue_as_new" // Temporal suggested it: carry the run into a new one
	MoveStop          Move = "stop"            // the step ceiling is reached
)

// StepView is what the step loop knows before a step.
type StepView struct {
	ContinueAsNewSuggested bool // Temporal's history is getting long
	Step, MaxSteps         int  // steps taken, and the agent's max_steps
	Graph                  bool // the agent walks an explicit graph
}

// NextMove decides before each step: continue-as-new first when Temporal
// suggests it (the run goes on in a new history, the ceiling is checked
// there), then stop with a reason when the step ceiling is reached, else
// take the step (reason "").
func NextMove(v StepView) (Move, string) {
	switch {
	case v.ContinueAsNewSuggested:
		return MoveContinueAsNew, ""
	case v.Step >= v.MaxSteps && v.Graph:
		return MoveStop, fmt.Sprintf("max_steps (%d) reached without reaching an end node", v.MaxSteps)
	case v.Step >= v.MaxSteps:
		return MoveStop, fmt.Sprintf("max_steps (%d) reached without an output", v.MaxSteps)
	default:
		return MoveStep, ""
	}
}
