package mend

import (
	"encoding/json"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// Host is what the repairs ask of the run they mend calls of.
type Host interface {
	// Version is the run's answer to gate g (workflow.GetVersion as the
	// run asks it, max version 1).
	Version(ctx workflow.Context, g Gate) workflow.Version
	// Count adds n to the run's counter name, tagged by key-value pairs.
	Count(ctx workflow.Context, name string, n int64, keyValues ...string)
	// Spec is what the run decides on now (its agent changes at a
	// handoff); Task is the run's task; ModelAt is the place of the model
	// it asks in Spec.Model.
	Spec() *config.Resolved
	Task() string
	ModelAt() int
	// KnownTool is whether the agent may call a tool of that name.
	KnownTool(name string) bool
	// ToolSchema is the tool's parameters, compiled once per run;
	// CheckArgs answers why args fail them ("" when they do not).
	ToolSchema(tool config.Tool) (*jsonschema.Schema, error)
	CheckArgs(tool config.Tool, args json.RawMessage) string
	// AddNode records n in the trace for the run's step, and answers its id.
	AddNode(ctx workflow.Context, n signals.Node) string
	// JSON encodes v as the run encodes what it records.
	JSON(v any) json.RawMessage
	// BudgetLeft answers how many tokens a prompt may take within the
	// run's budget, or why a model request would cross it; Spend counts a
	// request's tokens on node.
	BudgetLeft(ctx workflow.Context) (prompt int, over string)
	Spend(ctx workflow.Context, node string, input, output int, estimated bool)
	// ModelOptions are the options of a model request of the run now,
	// retried by retry, heartbeating as the run's requests do.
	ModelOptions(ctx workflow.Context, retry *temporal.RetryPolicy) workflow.ActivityOptions
	// ErrorText is an activity's error as the run tells it.
	ErrorText(err error) string
}

// Gate names a change of the repairs' behaviour that running workflows
// must not see mid-run; the run maps it to its change id.
type Gate int

const (
	// GateRepairValues: rule repair uses the newest rules where they
	// answer a call otherwise than the first ones.
	GateRepairValues Gate = iota
	// GateWholeArguments: arguments that are not a JSON object are read
	// as one (a JSON string holding one, lenient JSON).
	GateWholeArguments
	// GateRelativeDates: a date written relative to the run's day is
	// resolved against it.
	GateRelativeDates
	// GateRepairSpend: the model's repair is a model request the budget
	// counts and bounds.
	GateRepairSpend
)
