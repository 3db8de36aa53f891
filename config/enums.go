package config

// What to do when an identical write is re-issued after an edit.
const (
	ReexecuteReuse = "reuse"
	ReexecuteAsk   = "ask"
)

// Error classes of ErrorRule.Class.
const (
	ClassTransient   = "transient"
	ClassInvalidArgs = "invalid_args"
	ClassPersistent  = "persistent"
	ClassFatal       = "fatal"
)

// Escalation rungs, in the default order of Policies.Escalation.
const (
	RungRetry      = "retry"
	RungSubstitute = "substitute"
	RungExplore    = "explore"
	RungRollback   = "rollback"
	RungHandoff    = "handoff"
	RungHuman      = "human"
	RungStop       = "stop"
)

// Names the engine reserves. Tools may not take them, and HandoffHuman
// and HandoffAny are handoff targets that are not agents, so no agent may
// be called by them either.
const (
	ToolFinalOutput = "final_output"
	ToolHandoff     = "handoff"
	HandoffHuman    = "human"
	HandoffAny      = "*"
)

var (
	effects       = []string{EffectRead, EffectIdempotent, EffectWrite}
	approvals     = []string{approvalNever, approvalAlways}
	reexecutes    = []string{ReexecuteReuse, ReexecuteAsk}
	classes       = []string{ClassTransient, ClassInvalidArgs, ClassPersistent, ClassFatal}
	kinds         = []string{KindLLM, KindHuman}
	rungs         = []string{RungRetry, RungSubstitute, RungExplore, RungRollback, RungHandoff, RungHuman, RungStop}
	httpMethods   = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	reservedTools = []string{ToolFinalOutput, ToolHandoff}
)
