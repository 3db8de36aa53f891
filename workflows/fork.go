package workflows

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// fork starts a new workflow from the edited point (not yet).
func (r *runner) fork(ctx workflow.Context, req signals.EditRequest) (signals.EditResult, error) {
	return signals.EditResult{}, errors.New("edit: fork is not available yet")
}
