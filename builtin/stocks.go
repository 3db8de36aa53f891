package builtin

import (
	"context"
	"math"
	"regexp"
	"slices"
	"strings"
)

// The demo's stock tools (`unstuck demo edit`): a quote and a report.
// The prices are MADE UP and say so in every answer; they are
// deterministic, and every symbol's week is a rising one, so the demo and
// its tests always tell the same story.

func init() {
	Register("get_quote", getQuote)
	Register("write_report", writeReport)
}

// demoDataNote is in every quote: the prices are not market data.
const demoDataNote = "made-up demo data (unstuck builtin get_quote), not a market price"

var symbolPattern = regexp.MustCompile(`^[A-Z][A-Z.]{0,9}$`)

// Recommendations write_report accepts.
var recommendations = []string{"BUY", "HOLD", "SELL"}

func getQuote(_ context.Context, call Call) (any, error) {
	var a struct {
		Symbol string `json:"symbol"`
	}
	if err := decode("get_quote", call.Args, &a); err != nil {
		return nil, err
	}
	symbol, err := stockSymbol(a.Symbol)
	if err != nil {
		return nil, err
	}
	// Five closes rising about 1% a session from a price derived from
	// the symbol.
	base := 50 + float64(digest(symbol)%400)
	closes := make([]float64, 5)
	for i := range closes {
		closes[i] = cents(base * math.Pow(1.01, float64(i)))
	}
	last := closes[len(closes)-1]
	return map[string]any{
		"symbol":        symbol,
		"price":         last,
		"currency":      "USD",
		"closes_5d":     closes,
		"change_5d_pct": cents((last/closes[0] - 1) * 100),
		"trend_5d":      "up",
		"data":          demoDataNote,
	}, nil
}

func writeReport(_ context.Context, call Call) (any, error) {
	var a struct {
		Symbol         string `json:"symbol"`
		Recommendation string `json:"recommendation"`
		Summary        string `json:"summary"`
	}
	if err := decode("write_report", call.Args, &a); err != nil {
		return nil, err
	}
	symbol, err := stockSymbol(a.Symbol)
	if err != nil {
		return nil, err
	}
	rec := strings.ToUpper(strings.TrimSpace(a.Recommendation))
	if !slices.Contains(recommendations, rec) {
		return nil, Errorf("invalid_args", "value for 'recommendation' must be one of %s, got %q", strings.Join(recommendations, ", "), a.Recommendation)
	}
	if strings.TrimSpace(a.Summary) == "" {
		return nil, Errorf("invalid_args", "missing required parameter 'summary'")
	}
	// The report id derives from the idempotency key: a retried write
	// answers the same id, as a real reporting API would.
	return map[string]any{
		"report_id":      "RPT-" + code(call.IdempotencyKey, 6),
		"symbol":         symbol,
		"recommendation": rec,
		"status":         "written",
	}, nil
}

// stockSymbol checks and upper-cases a ticker symbol.
func stockSymbol(s string) (string, error) {
	symbol := strings.ToUpper(strings.TrimSpace(s))
	if symbol == "" {
		return "", Errorf("invalid_args", "missing required parameter 'symbol'")
	}
	if !symbolPattern.MatchString(symbol) {
		return "", Errorf("invalid_args", "invalid 'symbol' %q: a ticker of letters, like AAPL", s)
	}
	return symbol, nil
}

// digest is a small deterministic number derived from s.
func digest(s string) int {
	n := 0
	for _, d := range code(s, 4) {
		n = n*10 + int(d-'0')
	}
	return n
}

func cents(v float64) float64 { return math.Round(v*100) / 100 }
