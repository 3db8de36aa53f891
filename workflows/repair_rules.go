package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies/repair"
)

// ruleRepair runs a rule repair with the rules the run may use: the
// newest, unless they answer the call otherwise than the first rules (a
// repair made that was not, or not made that was), in which case the
// run's version decides (versionRepairValues). A recorded history whose
// calls both rule sets repair alike replays without a marker; one that
// was repaired by the first rules replays with them.
func ruleRepair(ctx workflow.Context, run func(repair.RuleSet) repair.Result) repair.Result {
	newest := run(repair.RulesNewest)
	first := run(repair.RulesFirst)
	if sameRepair(newest, first) {
		return newest
	}
	if versionOf(ctx, versionRepairValues, 1) >= 1 {
		return newest
	}
	return first
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
