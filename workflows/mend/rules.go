package mend

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies/repair"
)

// byRules runs a rule repair with the rules the run may use: the newest,
// unless they answer the call otherwise than the first rules (a repair
// made that was not, or not made that was), in which case the run's
// version decides (GateRepairValues). A recorded history whose calls both
// rule sets repair alike replays without a marker; one that was repaired
// by the first rules replays with them.
func (m *Mender) byRules(ctx workflow.Context, run func(repair.RuleSet) repair.Result) repair.Result {
	newest := run(repair.RulesNewest)
	first := run(repair.RulesFirst)
	if sameRepair(newest, first) {
		return newest
	}
	if m.host.Version(ctx, GateRepairValues) >= 1 {
		return newest
	}
	return first
}

// gatedRules are the rule repairs added after the first rules, each with
// its own gate: a run whose history does not have the gate repairs (or
// asks the model) as it did.
var gatedRules = []struct {
	strategy string
	gate     Gate
}{
	{repair.StrategyUnwrapArguments, GateWholeArguments},
	{repair.StrategyRelativeDate, GateRelativeDates},
}

// gateRules runs a rule repair with every gated rule on, and asks a
// rule's gate only when that rule acted; a run recorded before it repairs
// again without it. Each pass turns off one rule or more, or ends.
func (m *Mender) gateRules(ctx workflow.Context, run func(disabled []string) repair.Result) repair.Result {
	var disabled []string
	res := run(nil)
	for range gatedRules {
		var off []string
		for _, g := range gatedRules {
			if usesStrategy(res, g.strategy) && m.host.Version(ctx, g.gate) == workflow.DefaultVersion {
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

// sameRepair reports whether two repairs answer alike: the same
// arguments, validity, repairs (rule, place, values before and after,
// reason), what is left and why.
func sameRepair(a, b repair.Result) bool {
	return repairKey(a) == repairKey(b)
}

func repairKey(r repair.Result) string {
	left := make([]string, len(r.Unrepaired))
	for i, v := range r.Unrepaired {
		left[i] = v.String()
	}
	b, err := json.Marshal(struct {
		Args    map[string]any
		Valid   bool
		Repairs []repair.Applied
		Left    []string
		Reason  string
	}{r.Args, r.Valid, r.Repairs, left, r.Reason})
	if err != nil {
		return "unencodable: " + err.Error() // never equal to a key that encodes
	}
	return string(b)
}
