package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/mcptools"
)

// UnknownAgentError is the application error type of a run started for an
// agent the worker's config does not have.
const UnknownAgentError = "UnknownAgent"

// MCPUnavailableError is the application error type of a run start that
// could not list an MCP server's tools (it does not start, or does not
// answer): retried by the run's resolve policy.
const MCPUnavailableError = "MCPUnavailable"

// ResolveAgent looks an agent up in the worker's config, once at the start
// of a run. The workflow keeps the answer in its state, so a worker later
// restarted with another file never changes a running agent. The answer
// holds no address and no secret's name: the activities look those up in
// the worker's config when they call.
func (a *Activities) ResolveAgent(ctx context.Context, name string) (*config.Resolved, error) {
	r, err := a.config.Resolve(name, a.getenv)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), UnknownAgentError, nil)
	}
	if usesMCP(r) {
		// The MCP tools as their servers list them now: kept with the
		// run, so replay and continue-as-new never ask a server again.
		if err := r.ExpandMCP(a.config, a.listMCP(ctx)); err != nil {
			msg := a.redactMCP(err.Error())
			var unavailable *mcptools.UnavailableError
			if errors.As(err, &unavailable) {
				return nil, temporal.NewApplicationError(msg, MCPUnavailableError) // retried
			}
			return nil, temporal.NewNonRetryableApplicationError(msg, UnknownAgentError, nil)
		}
	}
	// Names only: the endpoints stay in the worker's config.
	return r.WithoutEndpoints(), nil
}
