package activities

import (
	"context"

	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
)

// UnknownAgentError is the application error type of a run started for an
// agent the worker's config does not have.
const UnknownAgentError = "UnknownAgent"

// ResolveAgent looks an agent up in the worker's config, once at the start
// of a run. The workflow keeps the answer in its state, so a worker later
// restarted with another file never changes a running agent. The answer
// holds no address and no secret's name: the activities look those up in
// the worker's config when they call.
func (a *Activities) ResolveAgent(_ context.Context, name string) (*config.Resolved, error) {
	r, err := a.config.Resolve(name, a.getenv)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), UnknownAgentError, nil)
	}
	// Names only: the endpoints stay in the worker's config.
	return r.WithoutEndpoints(), nil
}
