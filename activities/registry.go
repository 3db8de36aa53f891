package activities

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"golang.org/x/sync/errgroup"

	"github.com/unstuck-dev/unstuck/signals"
)

// Counter counts workflow executions by a visibility query; the Temporal
// client has it.
type Counter interface {
	CountWorkflow(ctx context.Context, request *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error)
}

// RegistryRequest asks for the live figures of agents: their runs now,
// and how their runs ended over the window before now.
type RegistryRequest struct {
	Agents []string      `json:"agents"`
	Window time.Duration `json:"window"`
	// Namespace to count in: the calling run's own (its workflow sets it;
	// empty means the activity's).
	Namespace string `json:"namespace,omitempty"`
}

// AgentLoad is an agent's live figures, as the choice of a handoff target
// reads them (policies.HandoffCandidate).
type AgentLoad struct {
	Agent   string `json:"agent"`
	Running int    `json:"running"`
	// Completed and Ended count the runs that closed within the window:
	// completed, and closed in any way.
	Completed int `json:"completed"`
	Ended     int `json:"ended"`
}

// SuccessRate is Completed over Ended, or -1 when no run ended.
func (l AgentLoad) SuccessRate() float64 {
	if l.Ended == 0 {
		return -1
	}
	return float64(l.Completed) / float64(l.Ended)
}

// ReadRegistry reads, from the Temporal server's visibility, how many runs
// of each agent run now (search attribute AgentName) and how the agent's
// runs ended over the window. It is an activity so the figures a handoff
// was chosen by are recorded in the history and replay.
func (a *Activities) ReadRegistry(ctx context.Context, req RegistryRequest) ([]AgentLoad, error) {
	counter, ok := a.querier.(Counter)
	if !ok {
		return nil, temporal.NewNonRetryableApplicationError("cannot read the registry: the worker's Temporal client cannot count workflows", NoVisibilityError, nil)
	}
	namespace := req.Namespace
	if namespace == "" {
		namespace = activity.GetInfo(ctx).Namespace
	}
	since := time.Now().Add(-req.Window).UTC().Format(time.RFC3339)
	count := func(query string) (int, error) {
		resp, err := counter.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: namespace, Query: query})
		if err != nil {
			return 0, fmt.Errorf("count %q: %w", query, err) // retried
		}
		return int(resp.GetCount()), nil
	}
	// Three counts per agent, for every agent of the registry: side by
	// side (a few at a time, not to flood the server), so a handoff does
	// not wait for them one after another.
	out := make([]AgentLoad, len(req.Agents))
	g, _ := errgroup.WithContext(ctx)
	g.SetLimit(registryCountsInFlight)
	for i, agent := range req.Agents {
		of := fmt.Sprintf("%s = '%s'", signals.AttrAgentName, strings.ReplaceAll(agent, "'", "''"))
		closed := fmt.Sprintf("%s AND ExecutionStatus != 'Running' AND ExecutionStatus != 'ContinuedAsNew' AND CloseTime > '%s'", of, since)
		out[i].Agent = agent
		for query, into := range map[string]*int{
			of + " AND ExecutionStatus = 'Running'": &out[i].Running,
			closed:                                  &out[i].Ended,
			closed + " AND ExecutionStatus = 'Completed'": &out[i].Completed,
		} {
			g.Go(func() (err error) {
				*into, err = count(query)
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// registryCountsInFlight bounds the visibility counts ReadRegistry has
// in flight at once.
const registryCountsInFlight = 8

// NoVisibilityError: the worker's client cannot count workflows.
const NoVisibilityError = "NoVisibility"
