package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies/repair"
)

// gatedRules are the rule repairs added after the first rules, each
// with its own version: a run whose history does not have the version
// repairs (or asks the model) as it did.
var gatedRules = []struct{ strategy, version string }{
	{repair.StrategyUnwrapArguments, versionWholeArguments},
	{repair.StrategyRelativeDate, versionRelativeDates},
}

// gateRules runs a rule repair with every gated rule on, and asks a
// rule's version only when that rule acted; a run recorded before it
// repairs again without it. Each pass turns off one rule or more, or
// ends.
func gateRules(ctx workflow.Context, run func(disabled []string) repair.Result) repair.Result {
	var disabled []string
	res := run(nil)
	for range gatedRules {
		var off []string
		for _, g := range gatedRules {
			if usesStrategy(res, g.strategy) && versionOf(ctx, g.version, 1) == workflow.DefaultVersion {
				off = append(off, g.strategy)
			}
		}
		if len(off) == 0 {
			return res
		}
		disabled = append(disabled, off...)
		res = run(disabled)
	}
	return res
}

func usesStrategy(res repair.Result, strategy string) bool {
	for _, a := range res.Repairs {
		if a.Strategy == strategy {
			return true
		}
	}
	return false
}

// repairText reads a call's arguments that are not a JSON object (a JSON
// string holding one, lenient JSON) by repair.RepairText, when repair is
// on and the call has a repair attempt left; the repair node records what
// was read. ok is false when nothing was read: the call fails as before.
func (r *runner) repairText(ctx workflow.Context, nodeID string, tc activities.ToolCall) (json.RawMessage, bool) {
	if r.repairsLeft(nodeID) <= 0 || !r.knownTool(tc.Name) {
		return nil, false
	}
	res := repair.RepairText(tc.Args)
	if res.JSON == nil || versionOf(ctx, versionWholeArguments, 1) == workflow.DefaultVersion {
		return nil, false
	}
	r.repairs[nodeID]++
	r.repairNode(ctx, nodeID, tc.Name, rawOrString(tc.Args), res.JSON,
		repair.Result{Valid: true, Repairs: res.Repairs, Reason: "arguments read as a JSON object"}, "")
	return res.JSON, true
}

// knownTool is whether a call names a tool the agent may call (an
// unknown one fails as such, whatever its arguments).
func (r *runner) knownTool(name string) bool {
	if name == FinalOutputTool || name == HandoffTool && r.run.offerHandoff {
		return true
	}
	_, ok := r.run.Spec.AgentTool(name)
	return ok
}
