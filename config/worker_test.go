package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWorkerTuning(t *testing.T) {
	f, err := parse(withTool(
		"  - {name: a, http: {url: http://t/a}}") + y(
		"worker:",
		"  max_concurrent_workflow_tasks: 50",
		"  max_concurrent_activities: 200",
		"  workflow_pollers: 4",
		"  activity_pollers: 8",
		"  sticky_cache_size: 500"))
	require.NoError(t, err)
	require.Equal(t, WorkerTuning{MaxConcurrentWorkflowTasks: 50, MaxConcurrentActivities: 200,
		WorkflowPollers: 4, ActivityPollers: 8, StickyCacheSize: 500}, f.Worker)

	// Left out, each setting is the SDK's default.
	f, err = parse(withTool("  - {name: a, http: {url: http://t/a}}") + y("worker: {activity_pollers: 3}"))
	require.NoError(t, err)
	got := map[string]int{}
	for _, fl := range f.Worker.Fields() {
		got[fl.Flag()] = fl.Effective()
	}
	require.Equal(t, map[string]int{"max-concurrent-workflow-tasks": 1000, "max-concurrent-activities": 1000,
		"workflow-pollers": 2, "activity-pollers": 3, "sticky-cache-size": 10000}, got)
}

func TestWorkerTuningRefused(t *testing.T) {
	// withTool's file ends at line 7; the worker block starts at line 8.
	base := withTool("  - {name: a, http: {url: http://t/a}}")
	runProblems(t, []problemCase{
		{"max_concurrent_activities 0", base + y("worker:", "  max_concurrent_activities: 0"),
			9, "worker.max_concurrent_activities", "must be at least 1, got 0"},
		{"max_concurrent_workflow_tasks negative", base + y("worker:", "  max_concurrent_workflow_tasks: -1"),
			9, "worker.max_concurrent_workflow_tasks", "must be at least 1, got -1"},
		{"workflow_pollers 0", base + y("worker: {workflow_pollers: 0}"),
			8, "worker.workflow_pollers", "must be at least 1, got 0"},
		{"activity_pollers 0", base + y("worker:", "  activity_pollers: 0"),
			9, "worker.activity_pollers", "must be at least 1, got 0"},
		{"sticky_cache_size 0", base + y("worker:", "  sticky_cache_size: 0"),
			9, "worker.sticky_cache_size", "must be at least 1, got 0"},
		{"unknown setting", base + y("worker:", "  pollers: 3"),
			9, "worker.pollers", `unknown field "pollers"`},
		{"not a number", base + y("worker:", "  activity_pollers: many"),
			9, "worker.activity_pollers", "cannot unmarshal !!str `many` into int"},
	})
}
