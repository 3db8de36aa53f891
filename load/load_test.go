package load

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testutil"
)

func startLocal(t *testing.T, steps int) *Local {
	t.Helper()
	local, err := StartLocal(context.Background(), devClient, LocalOptions{Steps: steps, Logf: t.Logf})
	require.NoError(t, err)
	t.Cleanup(local.Close)
	return local
}

// TestSelfContainedLoad drives 30 runs of 3 steps, 10 at a time, through
// the real worker, the scripted model (a test double) and the loopback
// tool, and checks the report adds up.
func TestSelfContainedLoad(t *testing.T) {
	const runs, steps = 30, 3
	local := startLocal(t, steps)
	var progress testutil.Buffer
	o := local.Options()
	o.Runs, o.Concurrency, o.Progress = runs, 10, &progress

	r, err := Run(context.Background(), devClient, o)
	require.NoError(t, err)
	var text bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	t.Log("\n" + text.String())

	require.Equal(t, runs, r.Started)
	require.Equal(t, runs, r.Completed, "failures: %+v", r.Failures)
	require.Zero(t, r.Failed)
	require.Zero(t, r.Abandoned)
	require.Empty(t, r.Failures)
	require.Empty(t, r.StoppedEarly)
	require.Equal(t, r.Started, r.Completed+r.Failed+r.Abandoned)

	// Each run: steps tool calls, then final_output: steps+1 model steps.
	require.Equal(t, runs*(steps+1), r.Steps)
	require.NotNil(t, r.Spend, "every result reports its spend")
	require.Equal(t, runs, r.Spend.Runs)
	require.InDelta(t, float64(steps+1), r.Spend.ModelRequests, 1e-9)
	require.InDelta(t, float64(steps), r.Spend.ToolCalls, 1e-9)
	require.Positive(t, r.Spend.InputTokens)
	require.Contains(t, text.String(), "spend per run")
	require.Equal(t, runs, r.Server.HistoriesRead, "unavailable: %v", r.Server.Unavailable)
	require.Equal(t, runs*(steps+1), r.StepLatency.Count, "one step a model request")
	require.Equal(t, runs, r.RunLatency.Count)
	require.Zero(t, r.Server.WorkflowTaskFailures)
	require.Empty(t, r.Server.Unavailable)
	require.Positive(t, r.Server.WorkflowPollers)
	require.Positive(t, r.Server.ActivityPollers)

	for name, l := range map[string]Latency{"step": r.StepLatency, "run": r.RunLatency} {
		require.Positive(t, l.P50, name)
		require.LessOrEqual(t, l.P50, l.P95, name)
		require.LessOrEqual(t, l.P95, l.P99, name)
		require.LessOrEqual(t, l.P99, l.Max, name)
	}
	require.Greater(t, r.RunLatency.P50, r.StepLatency.P50, "a run is several steps")
	require.Positive(t, r.RunsPerSecond)
	require.InDelta(t, float64(r.Steps)/r.WallSeconds, r.StepsPerSecond, 1e-9)

	// Every call carried exactly one key, each call its own.
	keys := local.Tools.Keys()
	require.Equal(t, KeyCounts{Calls: runs * steps, Keys: runs * steps}, keys)

	require.Contains(t, progress.String(), "started ")
	require.Regexp(t, `load: +\d+s  started \d+/30  completed \d+  failed 0`, progress.String())
	require.Contains(t, text.String(), "TEST DOUBLE")
}

// TestUnknownAgentStopsAfterTheFirstRun: runs of an agent the workers do
// not know all fail the same way, so the load stops after the first one
// and says why instead of starting the other runs.
func TestUnknownAgentStopsAfterTheFirstRun(t *testing.T) {
	local := startLocal(t, 1)
	o := local.Options()
	o.Agent, o.Runs, o.Concurrency = "nobody", 50, 10

	r, err := Run(context.Background(), devClient, o)
	require.ErrorIs(t, err, ErrStoppedEarly)
	require.NotNil(t, r)
	require.Equal(t, 1, r.Started)
	require.Equal(t, 1, r.Failed)
	require.Len(t, r.Failures, 1)
	require.Equal(t, "UnknownAgent", r.Failures[0].Kind, "ResolveAgent refuses it, and the run fails with its type")
	require.Contains(t, r.Failures[0].Error, "nobody")
	require.Contains(t, r.StoppedEarly, "UnknownAgent")
	require.Contains(t, r.StoppedEarly, "the other 49 runs were not started")
	require.Contains(t, err.Error(), "nobody")
	require.Zero(t, local.Tools.Keys().Calls)
}

// TestNoWorkerOnTheTaskQueue: a load on a queue nobody polls fails before
// starting a run, naming the queue.
func TestNoWorkerOnTheTaskQueue(t *testing.T) {
	r, err := Run(context.Background(), devClient, Options{
		Agent: "a", Task: "t", TaskQueue: "nobody-polls-this", Runs: 3, Concurrency: 1, PollerWait: 1,
	})
	require.Nil(t, r)
	require.ErrorContains(t, err, `no worker polls task queue "nobody-polls-this"`)
}

func TestOptionsAreChecked(t *testing.T) {
	base := Options{Agent: "a", Task: "t", TaskQueue: "q", Runs: 5, Concurrency: 50}
	o := base
	require.NoError(t, o.check())
	require.Equal(t, 5, o.Concurrency, "clamped to the runs")
	for name, bad := range map[string]func(*Options){
		"runs 0":         func(o *Options) { o.Runs = 0 },
		"concurrency -1": func(o *Options) { o.Concurrency = -1 },
		"no agent":       func(o *Options) { o.Agent = " " },
		"no task queue":  func(o *Options) { o.TaskQueue = "" },
		"no task":        func(o *Options) { o.Task = "" },
	} {
		o := base
		bad(&o)
		_, err := Run(context.Background(), nil, o)
		require.Error(t, err, name)
		require.False(t, errors.Is(err, ErrStoppedEarly), name)
		require.True(t, strings.HasPrefix(err.Error(), "load: "), name)
	}
}
