package config

import (
	"math"
	"strings"

	"golang.org/x/text/currency"
)

// Budget bounds what one run may spend (policies.budget): every limit is
// optional, and a run about to cross one takes the budget rung (a person
// may raise it; otherwise the run stops with a report of its spend).
// Pointers, so a limit written as 0 is refused rather than read as none.
type Budget struct {
	InputTokens   *int64 `yaml:"input_tokens" json:"input_tokens,omitempty"`
	OutputTokens  *int64 `yaml:"output_tokens" json:"output_tokens,omitempty"`
	ModelRequests *int64 `yaml:"model_requests" json:"model_requests,omitempty"`
	ToolCalls     *int64 `yaml:"tool_calls" json:"tool_calls,omitempty"`
	// ToolCallsPerTool bounds the calls of single tools (an unstuck
	// extension of the contract), by the tool's name.
	ToolCallsPerTool map[string]int64 `yaml:"tool_calls_per_tool" json:"tool_calls_per_tool,omitempty"`
	Cost             *CostLimit       `yaml:"cost" json:"cost,omitempty"`
	WallTime         Duration         `yaml:"wall_time" json:"wall_time,omitempty"`
}

// CostLimit is a budget in money, priced by the file's prices.
type CostLimit struct {
	Limit float64 `yaml:"limit" json:"limit"`
	// Currency must be the prices' currency, in any case; it is kept as
	// written, and runs count in Pricing.Currency (upper-cased).
	Currency string `yaml:"currency" json:"currency"`
}

// Prices price what runs spend, for cost budgets: models per million
// input and output tokens, tools per call, in Currency (default USD; any
// case, read upper-cased).
type Prices struct {
	Currency string                `yaml:"currency" json:"currency,omitempty"`
	Models   map[string]ModelPrice `yaml:"models" json:"models,omitempty"`
	Tools    map[string]float64    `yaml:"tools" json:"tools,omitempty"`
}

// ModelPrice is a model's price per million tokens.
type ModelPrice struct {
	Input  float64 `yaml:"input" json:"input"`
	Output float64 `yaml:"output" json:"output"`
}

// DefaultCurrency is the prices' currency when the file names none.
const DefaultCurrency = "USD"

// PicosPerUnit: costs are counted in integer millionths of a millionth of
// the currency, so a run's spend adds up the same on every worker (no
// float rounding decides whether a limit is crossed on replay). A price
// per million tokens is then exactly picos per token to its sixth
// decimal.
const PicosPerUnit = 1_000_000_000_000

// MaxAmount bounds an amount of money (a limit, a raise, a price per call)
// so its picos fit in int64 with room to add; MaxTokenPrice bounds a
// price per million tokens, so tokens times it fits too.
const (
	MaxAmount     = 1_000_000
	MaxTokenPrice = 10_000
)

// Picos converts an amount of money to picos, rounded; what is not a
// finite amount within int64 saturates (NaN is 0), the same on every
// CPU, so replay never depends on how a CPU converts an overflow.
func Picos(amount float64) int64 {
	p := math.Round(amount * PicosPerUnit)
	switch {
	case math.IsNaN(p):
		return 0
	case p >= math.MaxInt64:
		return math.MaxInt64
	case p <= math.MinInt64:
		return math.MinInt64
	}
	return int64(p)
}

// Amount converts picos back to money, for people to read.
func Amount(picos int64) float64 { return float64(picos) / PicosPerUnit }

// Pricing is what a run needs of the prices, in picos: per token of each
// model it may ask (its own and its fallbacks), per call of each tool.
// Resolved carries it, so a run's costs never change under it.
type Pricing struct {
	Currency string               `json:"currency"`
	Models   map[string]TokenCost `json:"models,omitempty"`
	Tools    map[string]int64     `json:"tools,omitempty"`
}

// TokenCost is a model's price per token, in picos.
type TokenCost struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// pricing is the prices of the models and tools a resolved agent uses.
func (p *Prices) pricing(r *Resolved) *Pricing {
	if p == nil {
		return nil
	}
	out := &Pricing{Currency: p.currency()}
	for _, name := range r.Model.Names() {
		if mp, ok := p.Models[name]; ok {
			if out.Models == nil {
				out.Models = map[string]TokenCost{}
			}
			// Per million tokens is picos per token, times a million.
			out.Models[name] = TokenCost{Input: Picos(mp.Input / 1e6), Output: Picos(mp.Output / 1e6)}
		}
	}
	for _, t := range r.Tools {
		if price, ok := p.Tools[t.Name]; ok {
			if out.Tools == nil {
				out.Tools = map[string]int64{}
			}
			out.Tools[t.Name] = Picos(price)
		}
	}
	return out
}

func (p *Prices) currency() string {
	if p.Currency == "" {
		return DefaultCurrency
	}
	return strings.ToUpper(p.Currency)
}

// knownCurrency says whether code is an ISO 4217 currency code, in any
// case: "usd" is what people write as often as "USD", and means nothing
// else. Runs read the prices' currency upper-cased (Prices.currency).
func knownCurrency(code string) bool {
	code = strings.ToUpper(code)
	u, err := currency.ParseISO(code)
	return err == nil && u.String() == code
}
