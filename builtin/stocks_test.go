package builtin

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// A quote is made up, says so, is the same every time and shows a rising
// week (the demo's story depends on it).
func TestGetQuoteIsMadeUpDeterministicAndRising(t *testing.T) {
	quote := func(args string) map[string]any {
		out, err := call(t, "get_quote", Call{IdempotencyKey: "ignored", Args: json.RawMessage(args)})
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m))
		return m
	}
	q := quote(`{"symbol":"aapl"}`)
	require.Equal(t, "AAPL", q["symbol"], "upper-cased")
	require.Equal(t, "USD", q["currency"])
	require.Equal(t, "up", q["trend_5d"])
	require.Contains(t, q["data"], "made-up demo data")
	closes := q["closes_5d"].([]any)
	require.Len(t, closes, 5)
	for i := 1; i < len(closes); i++ {
		require.Greater(t, closes[i].(float64), closes[i-1].(float64), "closes rise")
	}
	require.Equal(t, closes[4], q["price"])
	require.InDelta(t, 4.06, q["change_5d_pct"], 0.02)
	require.Equal(t, q, quote(`{"symbol":"AAPL"}`))
	require.NotEqual(t, q["price"], quote(`{"symbol":"MSFT"}`)["price"])
}

func TestGetQuoteRefusesBadSymbols(t *testing.T) {
	for args, message := range map[string]string{
		`{}`:                       "missing required parameter 'symbol'",
		`{"symbol":" "}`:           "missing required parameter 'symbol'",
		`{"symbol":"AA PL"}`:       `invalid 'symbol' "AA PL"`,
		`{"symbol":"1234"}`:        `invalid 'symbol' "1234"`,
		`{"symbol":1}`:             "get_quote: arguments are not valid",
		`{"symbol":`:               "get_quote: arguments are not valid",
		`{"symbol":"ABCDEFGHIJK"}`: `invalid 'symbol'`,
	} {
		_, err := call(t, "get_quote", Call{Args: json.RawMessage(args)})
		requireClassed(t, err, "invalid_args", message)
	}
}

// The report id comes from the idempotency key: a retried write gets the
// same one, another write another.
func TestWriteReportIDFollowsTheIdempotencyKey(t *testing.T) {
	write := func(key string) map[string]any {
		out, err := call(t, "write_report", Call{IdempotencyKey: key,
			Args: json.RawMessage(`{"symbol":"aapl","recommendation":"buy","summary":"rising week"}`)})
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m))
		return m
	}
	first := write("key-1")
	require.Regexp(t, regexp.MustCompile(`^RPT-\d{6}$`), first["report_id"])
	require.Equal(t, "AAPL", first["symbol"])
	require.Equal(t, "BUY", first["recommendation"])
	require.Equal(t, "written", first["status"])
	require.Equal(t, first, write("key-1"))
	require.NotEqual(t, first["report_id"], write("key-2")["report_id"])
}

func TestWriteReportRefusesBadArguments(t *testing.T) {
	for args, message := range map[string]string{
		`{"symbol":"AAPL","recommendation":"MAYBE","summary":"x"}`: "value for 'recommendation' must be one of BUY, HOLD, SELL",
		`{"symbol":"AAPL","summary":"x"}`:                          "value for 'recommendation' must be one of",
		`{"symbol":"AAPL","recommendation":"SELL"}`:                "missing required parameter 'summary'",
		`{"recommendation":"SELL","summary":"x"}`:                  "missing required parameter 'symbol'",
		`{"symbol":"AAPL","recommendation":1,"summary":"x"}`:       "write_report: arguments are not valid",
	} {
		_, err := call(t, "write_report", Call{Args: json.RawMessage(args)})
		requireClassed(t, err, "invalid_args", message)
	}
}
