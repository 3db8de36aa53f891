package signals

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// BudgetRequest answers a run waiting at the budget rung (the "budget"
// message): raise the named limits by these amounts, or stop with the
// report.
type BudgetRequest struct {
	Audit
	Raise *BudgetRaise `json:"raise,omitempty"`
	Stop  bool         `json:"stop,omitempty"`
}

// BudgetRaise is what a person adds to a run's limits; cost is in the
// budget's currency, wall_time a duration ("30m").
type BudgetRaise struct {
	ModelRequests int64   `json:"model_requests,omitempty"`
	ToolCalls     int64   `json:"tool_calls,omitempty"`
	InputTokens   int64   `json:"input_tokens,omitempty"`
	OutputTokens  int64   `json:"output_tokens,omitempty"`
	Cost          float64 `json:"cost,omitempty"`
	WallTime      string  `json:"wall_time,omitempty"`
	// ToolCallsPerTool raises tool_calls_per_tool, by tool name.
	ToolCallsPerTool map[string]int64 `json:"tool_calls_per_tool,omitempty"`
}

// Empty says the raise names no amount at all.
func (r BudgetRaise) Empty() bool {
	return r.ModelRequests == 0 && r.ToolCalls == 0 && r.InputTokens == 0 && r.OutputTokens == 0 &&
		r.Cost == 0 && r.WallTime == "" && len(r.ToolCallsPerTool) == 0
}

// ParseToolCounts reads a raise of tool_calls_per_tool written as
// "search=5, book=1" (a form field); "" is none.
func ParseToolCounts(text string) (map[string]int64, error) {
	var out map[string]int64
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		tool, count, ok := strings.Cut(part, "=")
		n, err := strconv.ParseInt(strings.TrimSpace(count), 10, 64)
		if !ok || strings.TrimSpace(tool) == "" || err != nil {
			return nil, fmt.Errorf("budget: tool_calls_per_tool: %q is not tool=count (e.g. search=5)", part)
		}
		if out == nil {
			out = map[string]int64{}
		}
		out[strings.TrimSpace(tool)] += n
	}
	return out, nil
}

// maxRaiseCost bounds a raise of cost (config.MaxAmount, which this
// package does not import).
const maxRaiseCost = 1_000_000

// Validate checks the payload itself; whether a budget rung waits, and
// whether the run's budget has the raised limits, is the run's to say.
func (r BudgetRequest) Validate() error {
	switch {
	case r.Stop && r.Raise != nil:
		return errors.New(`budget: give "raise" or "stop", not both`)
	case !r.Stop && r.Raise == nil:
		return errors.New(`budget: give "raise" (amounts to add to the limits) or "stop": true`)
	case r.Stop:
		return nil
	}
	var problems []string
	negative := func(name string, v int64) {
		if v < 0 {
			problems = append(problems, fmt.Sprintf("budget: raise.%s must be a positive amount, got %d", name, v))
		}
	}
	negative("model_requests", r.Raise.ModelRequests)
	negative("tool_calls", r.Raise.ToolCalls)
	negative("input_tokens", r.Raise.InputTokens)
	negative("output_tokens", r.Raise.OutputTokens)
	for _, tool := range slices.Sorted(maps.Keys(r.Raise.ToolCallsPerTool)) {
		if v := r.Raise.ToolCallsPerTool[tool]; v <= 0 {
			problems = append(problems, fmt.Sprintf("budget: raise.tool_calls_per_tool.%s must be a positive amount, got %d", tool, v))
		}
	}
	if !(r.Raise.Cost >= 0 && r.Raise.Cost <= maxRaiseCost) {
		problems = append(problems, fmt.Sprintf("budget: raise.cost must be a positive amount of at most %d, got %g", maxRaiseCost, r.Raise.Cost))
	}
	if r.Raise.WallTime != "" {
		if d, err := time.ParseDuration(r.Raise.WallTime); err != nil || d <= 0 {
			problems = append(problems, fmt.Sprintf("budget: raise.wall_time must be a positive duration such as 30m, got %q", r.Raise.WallTime))
		}
	}
	if len(problems) == 0 && r.Raise.Empty() {
		problems = append(problems, "budget: raise names no limit: give an amount for model_requests, tool_calls, tool_calls_per_tool, input_tokens, output_tokens, cost or wall_time")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// BudgetResult is the update's answer: the budget node the decision
// became.
type BudgetResult struct {
	NodeID string `json:"node_id"`
}

// SpendStatus is status.spend: what the run spent, per kind, per agent
// along its handoff path, and against each limit of its budget.
type SpendStatus struct {
	InputTokens   int64            `json:"input_tokens"`
	OutputTokens  int64            `json:"output_tokens"`
	ModelRequests int64            `json:"model_requests"`
	ToolCalls     int64            `json:"tool_calls"`
	ToolCallsBy   map[string]int64 `json:"tool_calls_by,omitempty"`
	Cost          float64          `json:"cost,omitempty"`
	Currency      string           `json:"currency,omitempty"`
	// Estimated: model requests whose tokens the provider did not report
	// (counted by the worker's tokenizer).
	Estimated int64 `json:"estimated,omitempty"`
	// WallTime is the run's age, from its first generation's start.
	WallTime string `json:"wall_time,omitempty"`
	// Limits are the budget's limits, raises included; absent: no budget.
	Limits map[string]any `json:"limits,omitempty"`
	// ByAgent is the spend of each agent of the handoff path.
	ByAgent map[string]SpendStatus `json:"by_agent,omitempty"`
}
