package workflows

import (
	"encoding/json"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/mend"
)

// mend is the repairs of the run's calls (workflows/mend): the attempts of
// this generation, kept by the runner. Made for each use, so it always
// asks the runner it is called on.
func (r *runner) mend() *mend.Mender {
	return mend.New(mendHost{r}, &r.mending)
}

// mendHost is what the repairs ask of the run.
type mendHost struct{ r *runner }

var _ mend.Host = mendHost{}

// mendGates are the change ids of the repairs' gates.
var mendGates = map[mend.Gate]string{
	mend.GateRepairValues:   versionRepairValues,
	mend.GateWholeArguments: versionWholeArguments,
	mend.GateRelativeDates:  versionRelativeDates,
	mend.GateRepairSpend:    versionRepairSpend,
}

func (h mendHost) Version(ctx workflow.Context, g mend.Gate) workflow.Version {
	return versionOf(ctx, mendGates[g], 1)
}

func (h mendHost) Count(ctx workflow.Context, name string, n int64, keyValues ...string) {
	h.r.count(ctx, name, n, keyValues...)
}

func (h mendHost) Spec() *config.Resolved { return h.r.run.Spec }
func (h mendHost) Task() string           { return h.r.run.Input.Task }
func (h mendHost) ModelAt() int           { return h.r.run.ModelAt }

// KnownTool: an unknown tool fails as such, whatever its arguments.
func (h mendHost) KnownTool(name string) bool {
	if name == FinalOutputTool || name == HandoffTool && h.r.run.offerHandoff {
		return true
	}
	_, ok := h.r.run.Spec.AgentTool(name)
	return ok
}

func (h mendHost) ToolSchema(tool config.Tool) (*jsonschema.Schema, error) {
	return h.r.toolSchema(tool)
}

func (h mendHost) CheckArgs(tool config.Tool, args json.RawMessage) string {
	return h.r.checkArgs(tool, args)
}

func (h mendHost) AddNode(ctx workflow.Context, n signals.Node) string {
	return h.r.addNode(ctx, Node{Node: n, Step: h.r.run.Step}).ID
}

func (h mendHost) JSON(v any) json.RawMessage { return mustJSON(v) }

func (h mendHost) BudgetLeft(ctx workflow.Context) (int, string) { return h.r.budget().Beside(ctx) }

func (h mendHost) Spend(ctx workflow.Context, node string, input, output int, estimated bool) {
	h.r.budget().SpendTokens(ctx, node, input, output, estimated)
}

func (h mendHost) ModelOptions(ctx workflow.Context, retry *temporal.RetryPolicy) workflow.ActivityOptions {
	o := modelOptions(h.r.run.Spec.Model)
	o.RetryPolicy = retry
	return h.r.model().WithHeartbeat(ctx, o)
}

func (h mendHost) ErrorText(err error) string { return errorText(err) }
