package budget

import (
	"fmt"

	"github.com/unstuck-dev/unstuck/signals"
)

// Wanted says whether a budget decision can land now: a budget rung
// waits, has no decision yet, and a raise names only limits the budget
// has. It changes nothing (an update's validator asks it).
func (b *Budget) Wanted(req signals.BudgetRequest) error {
	spec := b.host.Spec()
	limits := spec.Agent.Policies.Budget
	w := b.hold.wait
	switch {
	case limits == nil:
		return fmt.Errorf("budget: the run has no budget (its agent %s has no policies.budget)", spec.Agent.Name)
	case w == nil:
		return fmt.Errorf("budget: no budget rung waits (the run is %s): a raise is taken only while the run waits at one", b.host.Phase())
	case w.decision != nil:
		return fmt.Errorf("budget: %s already has a decision", w.nodeID)
	case req.Stop:
		return nil
	}
	var missing []string
	has := func(name string, raised bool, limit bool) {
		if raised && !limit {
			missing = append(missing, name)
		}
	}
	x := req.Raise
	has("model_requests", x.ModelRequests > 0, limits.ModelRequests != nil)
	has("tool_calls", x.ToolCalls > 0, limits.ToolCalls != nil)
	has("input_tokens", x.InputTokens > 0, limits.InputTokens != nil)
	has("output_tokens", x.OutputTokens > 0, limits.OutputTokens != nil)
	has("cost", x.Cost > 0, limits.Cost != nil)
	has("wall_time", x.WallTime != "", limits.WallTime > 0)
	// The first tool without a limit, by name, whatever the map's order.
	first, unlimited := "", false
	//workflowcheck:ignore
	for tool := range x.ToolCallsPerTool {
		if _, limited := limits.ToolCallsPerTool[tool]; !limited && (!unlimited || tool < first) {
			first, unlimited = tool, true
		}
	}
	has("tool_calls_per_tool."+first, unlimited, false)
	if len(missing) > 0 {
		return fmt.Errorf("budget: raise.%s: the run's budget has no such limit to raise", missing[0])
	}
	if w.waits && !w.cross.Raises(raiseLimits(*x)) {
		return fmt.Errorf("budget: the run waits because %s: a raise must raise %s", w.cross.Why(), w.cross.Field())
	}
	return nil
}

// Accept is where a valid budget decision lands, from the update or the
// signal: the rung waiting takes it.
func (b *Budget) Accept(req signals.BudgetRequest) (signals.BudgetResult, error) {
	if err := b.Wanted(req); err != nil {
		return signals.BudgetResult{}, err
	}
	copied := req
	b.hold.wait.decision = &copied
	return signals.BudgetResult{NodeID: b.hold.wait.nodeID}, nil
}
