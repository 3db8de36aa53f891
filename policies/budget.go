package policies

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/unstuck-dev/unstuck/config"
)

// Budgets (policies.budget): the workflow counts what a run spends from
// what its activities report, and before each model request or tool call
// asks these rules whether it would cross a limit. The rules read no clock
// and range over no map unsorted, so the workflow may call them.

// Spend is what a run (or one agent of it) has spent. Costs are in picos
// of the prices' currency (config.PicosPerUnit).
type Spend struct {
	InputTokens   int64            `json:"input_tokens"`
	OutputTokens  int64            `json:"output_tokens"`
	ModelRequests int64            `json:"model_requests"`
	ToolCalls     int64            `json:"tool_calls"`
	ToolCallsBy   map[string]int64 `json:"tool_calls_by,omitempty"`
	CostPicos     int64            `json:"cost_picos,omitempty"`
	// Estimated counts the model requests whose tokens the provider did
	// not report: the worker's tokenizer counted them.
	Estimated int64 `json:"estimated,omitempty"`
}

// Reply is what one answered model request spent.
type Reply struct {
	InputTokens, OutputTokens int64
	Estimated                 bool
	Price                     config.TokenCost
}

// AddReply counts an answered model request.
func (s *Spend) AddReply(r Reply) {
	s.ModelRequests++
	s.InputTokens += r.InputTokens
	s.OutputTokens += r.OutputTokens
	s.CostPicos += r.InputTokens*r.Price.Input + r.OutputTokens*r.Price.Output
	if r.Estimated {
		s.Estimated++
	}
}

// AddCall counts a tool call made, at its price per call.
func (s *Spend) AddCall(tool string, pricePicos int64) {
	s.ToolCalls++
	if s.ToolCallsBy == nil {
		s.ToolCallsBy = map[string]int64{}
	}
	s.ToolCallsBy[tool]++
	s.CostPicos += pricePicos
}

// Add adds another spend (a node's) to s.
func (s *Spend) Add(o Spend) {
	s.InputTokens += max(o.InputTokens, 0)
	s.OutputTokens += max(o.OutputTokens, 0)
	s.ModelRequests += max(o.ModelRequests, 0)
	s.ToolCalls += max(o.ToolCalls, 0)
	s.CostPicos += max(o.CostPicos, 0)
	s.Estimated += max(o.Estimated, 0)
	for _, tool := range sortedKeys(o.ToolCallsBy) {
		if s.ToolCallsBy == nil {
			s.ToolCallsBy = map[string]int64{}
		}
		s.ToolCallsBy[tool] += max(o.ToolCallsBy[tool], 0)
	}
}

// Limits are a run's budget: its agent's policies.budget plus what
// people raised it by. Zero is no limit.
type Limits struct {
	InputTokens   int64            `json:"input_tokens,omitempty"`
	OutputTokens  int64            `json:"output_tokens,omitempty"`
	ModelRequests int64            `json:"model_requests,omitempty"`
	ToolCalls     int64            `json:"tool_calls,omitempty"`
	ToolCallsBy   map[string]int64 `json:"tool_calls_by,omitempty"`
	CostPicos     int64            `json:"cost_picos,omitempty"`
	WallTime      time.Duration    `json:"wall_time,omitempty"`
}

// LimitsOf is budget b raised by raised. A raise counts only for a limit
// the budget has: it never creates one (nil b: no limit at all).
func LimitsOf(b *config.Budget, raised Limits) Limits {
	var l Limits
	if b == nil {
		return l
	}
	add := func(to *int64, v *int64, by int64) {
		if v != nil {
			*to = satAdd(*v, by)
		}
	}
	add(&l.InputTokens, b.InputTokens, raised.InputTokens)
	add(&l.OutputTokens, b.OutputTokens, raised.OutputTokens)
	add(&l.ModelRequests, b.ModelRequests, raised.ModelRequests)
	add(&l.ToolCalls, b.ToolCalls, raised.ToolCalls)
	for _, tool := range sortedKeys(b.ToolCallsPerTool) {
		if l.ToolCallsBy == nil {
			l.ToolCallsBy = map[string]int64{}
		}
		l.ToolCallsBy[tool] = satAdd(b.ToolCallsPerTool[tool], raised.ToolCallsBy[tool])
	}
	if b.Cost != nil {
		l.CostPicos = satAdd(config.Picos(b.Cost.Limit), raised.CostPicos)
	}
	if b.WallTime > 0 {
		l.WallTime = time.Duration(satAdd(int64(b.WallTime), int64(raised.WallTime)))
	}
	return l
}

// satAdd adds without wrapping round: a sum past int64 stays at its top.
func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Raise adds a person's raise to the limits raised so far. Only limits
// the budget has can be raised: raising one it does not have would
// create it, which a raise does not do.
func (l Limits) Raise(by Limits) Limits {
	if len(by.ToolCallsBy) > 0 {
		// A copy: the limits raised so far may be shared with a checkpoint.
		raised := map[string]int64{}
		for _, tool := range sortedKeys(l.ToolCallsBy) {
			raised[tool] = l.ToolCallsBy[tool]
		}
		for _, tool := range sortedKeys(by.ToolCallsBy) {
			raised[tool] = satAdd(raised[tool], by.ToolCallsBy[tool])
		}
		l.ToolCallsBy = raised
	}
	l.InputTokens = satAdd(l.InputTokens, by.InputTokens)
	l.OutputTokens = satAdd(l.OutputTokens, by.OutputTokens)
	l.ModelRequests = satAdd(l.ModelRequests, by.ModelRequests)
	l.ToolCalls = satAdd(l.ToolCalls, by.ToolCalls)
	l.CostPicos = satAdd(l.CostPicos, by.CostPicos)
	l.WallTime = time.Duration(satAdd(int64(l.WallTime), int64(by.WallTime)))
	return l
}

// Crossing is the limit a request or call would cross, with what was
// spent and what it needs, in the limit's unit (picos for cost,
// milliseconds for wall time).
type Crossing struct {
	Limit string `json:"limit"`
	Tool  string `json:"tool,omitempty"`
	Spent int64  `json:"spent"`
	Need  int64  `json:"need"`
	Cap   int64  `json:"cap"`
}

// Why says it in a sentence.
func (c Crossing) Why() string {
	return fmt.Sprintf("the budget's %s would be crossed: %s spent, %s more needed, limit %s",
		c.Field(), c.amount(c.Spent), c.amount(c.Need), c.amount(c.Cap))
}

// Field is the crossed limit as policies.budget and a raise spell it.
func (c Crossing) Field() string {
	if c.Tool != "" {
		return "tool_calls_per_tool." + c.Tool
	}
	return c.Limit
}

func (c Crossing) amount(v int64) string {
	switch c.Limit {
	case LimitCost:
		return fmt.Sprintf("%.6g", config.Amount(v))
	case LimitWallTime:
		return (time.Duration(v) * time.Millisecond).String()
	}
	return fmt.Sprint(v)
}

// The limits a Crossing names, as policies.budget spells them.
const (
	LimitInputTokens   = "input_tokens"
	LimitOutputTokens  = "output_tokens"
	LimitModelRequests = "model_requests"
	LimitToolCalls     = "tool_calls"
	LimitCost          = "cost"
	LimitWallTime      = "wall_time"
)

// over answers the crossing when spent+need goes past limit (0: none).
func over(limit string, spent, need, cap int64) *Crossing {
	if cap <= 0 || spent+need <= cap {
		return nil
	}
	return &Crossing{Limit: limit, Spent: spent, Need: need, Cap: cap}
}

// wallTime is the crossing of the run's wall time, elapsed so far.
func (l Limits) wallTime(elapsed time.Duration) *Crossing {
	if l.WallTime <= 0 || elapsed < l.WallTime {
		return nil
	}
	return &Crossing{Limit: LimitWallTime, Spent: elapsed.Milliseconds(), Cap: l.WallTime.Milliseconds()}
}

// Raises says whether a raise by is of the limit c crossed: a raise of
// another limit alone would leave the run at the same rung.
func (c Crossing) Raises(by Limits) bool {
	switch c.Limit {
	case LimitInputTokens:
		return by.InputTokens > 0
	case LimitOutputTokens:
		return by.OutputTokens > 0
	case LimitModelRequests:
		return by.ModelRequests > 0
	case LimitToolCalls:
		if c.Tool != "" {
			return by.ToolCallsBy[c.Tool] > 0
		}
		return by.ToolCalls > 0
	case LimitCost:
		return by.CostPicos > 0
	case LimitWallTime:
		return by.WallTime > 0
	}
	return true
}

// MinReplyTokens is the least room a budget leaves a reply: a bound below
// it would cut most replies off, so the request crosses the budget instead.
const MinReplyTokens = 256

// ReplyRoom is the bound a budgeted request's reply is sent with: the
// model's (ask.ReplyTokens), or less when the budget has less left: what
// is left of output_tokens, and half of what is left of cost (the other
// half is the prompt's), but never under MinReplyTokens (or the model's
// bound, when smaller): with less room than that, BeforeRequest reports
// the crossing of the least reply worth asking for.
func ReplyRoom(l Limits, s Spend, ask RequestAsk) int64 {
	reply := ask.ReplyTokens
	if l.OutputTokens > 0 {
		reply = min(reply, l.OutputTokens-s.OutputTokens)
	}
	if l.CostPicos > 0 && ask.Price.Output > 0 {
		reply = min(reply, (l.CostPicos-s.CostPicos)/2/ask.Price.Output)
	}
	return max(reply, min(MinReplyTokens, ask.ReplyTokens))
}

// RequestAsk is a model request about to be sent: the most its reply may
// take (the model's max_output_tokens) and the model's price.
type RequestAsk struct {
	ReplyTokens int64
	Price       config.TokenCost
}

// BeforeRequest answers the limit a model request would cross, counting
// its reply at its bound, and otherwise the most tokens its prompt may
// take (0: no bound): the model activity counts the prompt and does not
// send one over it.
func BeforeRequest(l Limits, s Spend, ask RequestAsk, elapsed time.Duration) (*Crossing, int64) {
	if c := l.wallTime(elapsed); c != nil {
		return c, 0
	}
	if c := over(LimitModelRequests, s.ModelRequests, 1, l.ModelRequests); c != nil {
		return c, 0
	}
	if c := over(LimitOutputTokens, s.OutputTokens, ask.ReplyTokens, l.OutputTokens); c != nil {
		return c, 0
	}
	var prompt int64
	if l.InputTokens > 0 {
		prompt = l.InputTokens - s.InputTokens
		if prompt <= 0 {
			return &Crossing{Limit: LimitInputTokens, Spent: s.InputTokens, Need: 1, Cap: l.InputTokens}, 0
		}
	}
	if l.CostPicos > 0 {
		left := l.CostPicos - s.CostPicos - ask.ReplyTokens*ask.Price.Output
		if left <= 0 || (ask.Price.Input > 0 && left < ask.Price.Input) {
			return &Crossing{Limit: LimitCost, Spent: s.CostPicos, Need: ask.ReplyTokens*ask.Price.Output + ask.Price.Input, Cap: l.CostPicos}, 0
		}
		if ask.Price.Input > 0 {
			byCost := left / ask.Price.Input
			if prompt == 0 || byCost < prompt {
				prompt = byCost
			}
		}
	}
	return nil, prompt
}

// PromptCrossing is the limit a prompt counted at tokens crosses, once the
// model activity refused to send it over BeforeRequest's bound.
func PromptCrossing(l Limits, s Spend, ask RequestAsk, tokens int64) Crossing {
	if c := over(LimitInputTokens, s.InputTokens, tokens, l.InputTokens); c != nil {
		return *c
	}
	need := tokens*ask.Price.Input + ask.ReplyTokens*ask.Price.Output
	return Crossing{Limit: LimitCost, Spent: s.CostPicos, Need: need, Cap: l.CostPicos}
}

// BeforeCall answers the limit a call of tool at its price would cross.
func BeforeCall(l Limits, s Spend, tool string, pricePicos int64, elapsed time.Duration) *Crossing {
	if c := l.wallTime(elapsed); c != nil {
		return c
	}
	if c := over(LimitToolCalls, s.ToolCalls, 1, l.ToolCalls); c != nil {
		return c
	}
	if c := over(LimitToolCalls, s.ToolCallsBy[tool], 1, l.ToolCallsBy[tool]); c != nil {
		c.Tool = tool
		return c
	}
	return over(LimitCost, s.CostPicos, pricePicos, l.CostPicos)
}

// sortedKeys answers a map's keys in order: the only order the
// workflow may act in.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	// Sorted below: the map's order never shows.
	//workflowcheck:ignore
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
