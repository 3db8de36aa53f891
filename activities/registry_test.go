package activities

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A worker whose client cannot count workflows says so, for good (the
// figures are read from the server's visibility; testsuite reads them).
func TestReadRegistryNeedsAClientThatCounts(t *testing.T) {
	acts := newTestActivities()
	env := newActivityEnv(t, acts)
	_, err := env.ExecuteActivity(acts.ReadRegistry, RegistryRequest{Agents: []string{"refunds"}, Window: time.Hour})
	require.ErrorContains(t, err, "cannot read the registry: the worker's Temporal client cannot count workflows")
}

func TestSuccessRate(t *testing.T) {
	require.Equal(t, -1.0, AgentLoad{}.SuccessRate(), "no run ended: unknown")
	require.Equal(t, 0.75, AgentLoad{Completed: 3, Ended: 4}.SuccessRate())
}
