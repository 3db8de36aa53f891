package workflows

// Change ids of workflow.GetVersion: each names a behaviour change that
// running workflows must not see mid-run. Keep them, and the old branch,
// while histories recorded before the change may still replay.
const (
	// versionParallelCalls: the calls of one reply run concurrently as
	// their references allow (before: one after another, in order).
	versionParallelCalls = "parallel-calls"
	// versionArgumentRepair: arguments failing the schema or refused as
	// invalid_args are repaired (before: the error went to the model).
	versionArgumentRepair = "argument-repair"
	// versionOnePipeline: graph tool nodes walk the model's call pipeline;
	// what a person decided for a graph call is checked against the
	// blocked calls again (before: it ran unchecked).
	versionOnePipeline = "one-call-pipeline"
)
