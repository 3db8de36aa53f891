package refs_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

// Numbers a run must carry exactly: above 2^53, above int64, and a
// decimal with more digits than a float64 holds.
const (
	aboveFloat = "9007199254740993" // 2^53 + 1: float64 makes it ...992
	aboveInt64 = "123456789012345678901234567890"
	longFrac   = "0.1000000000000000055511151231257827"
)

func TestExactKeepsEveryNumber(t *testing.T) {
	tests := []struct {
		text string
		want any
	}{
		{"0", int64(0)},
		{"-7", int64(-7)},
		{aboveFloat, int64(9007199254740993)},
		{"-9223372036854775808", int64(-9223372036854775808)},
		{"9223372036854775808", json.Number("9223372036854775808")}, // int64 max + 1
		{aboveInt64, json.Number(aboveInt64)},
		{"0.1", 0.1},
		{"2.50", 2.5},
		{"-1.5e-7", -1.5e-7},
		{"1e21", 1e21},
		{"1E2", 100.0},
		{"100.0", 100.0},
		{"0.30000000000000004", 0.30000000000000004},
		{longFrac, json.Number(longFrac)},
		{"9007199254740993.0", json.Number("9007199254740993.0")},
		{"1e400", json.Number("1e400")},   // beyond float64
		{"1e-400", json.Number("1e-400")}, // below the smallest float64
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got := refs.Exact(json.Number(tt.text))
			require.Equal(t, tt.want, got)
			// Re-encoded, it is the same decimal value.
			b, err := json.Marshal(got)
			require.NoError(t, err)
			var back, orig json.Number
			require.NoError(t, json.Unmarshal(b, &back))
			orig = json.Number(tt.text)
			require.True(t, refs.SameDecimal(string(back), string(orig)), "%s re-encoded as %s", tt.text, b)
		})
	}
}

func TestExactRewritesNestedValues(t *testing.T) {
	v, err := decodeNumbers(`{"order":{"id":` + aboveFloat + `,"lines":[` + aboveInt64 + `,0.5,"x",null,true]}}`)
	require.NoError(t, err)
	got := refs.Exact(v)
	require.Equal(t, map[string]any{"order": map[string]any{
		"id":    int64(9007199254740993),
		"lines": []any{json.Number(aboveInt64), 0.5, "x", nil, true},
	}}, got)
}

func decodeNumbers(s string) (any, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	err := dec.Decode(&v)
	return v, err
}

// State decodes its numbers exact: plain encoding/json would make them
// float64 and 9007199254740993 would come back as 9007199254740992.
func TestStateDecodesNumbersExact(t *testing.T) {
	doc := `{"order":{"id":` + aboveFloat + `,"big":` + aboveInt64 + `,"frac":` + longFrac + `,"n":2,"f":0.25}}`
	var s refs.State
	require.NoError(t, json.Unmarshal([]byte(doc), &s))
	require.Equal(t, refs.State{"order": map[string]any{
		"id": int64(9007199254740993), "big": json.Number(aboveInt64), "frac": json.Number(longFrac),
		"n": int64(2), "f": 0.25,
	}}, s)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.JSONEq(t, doc, string(b))
	require.Contains(t, string(b), aboveFloat)
	require.Contains(t, string(b), aboveInt64)
	require.Contains(t, string(b), longFrac)

	// Inside a struct, as the run holds it.
	var holder struct {
		State refs.State `json:"state"`
		Other float64    `json:"other"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"state":`+doc+`,"other":`+aboveFloat+`}`), &holder))
	require.Equal(t, int64(9007199254740993), holder.State["order"].(map[string]any)["id"])
	require.Equal(t, 9007199254740992.0, holder.Other, "only State decodes this way")

	var empty refs.State
	require.NoError(t, json.Unmarshal([]byte(`null`), &empty))
	require.Nil(t, empty)
	require.Error(t, json.Unmarshal([]byte(`[1]`), &empty))
}

// A reference into State resolves to the exact number, and the resolved
// arguments encode it with every digit.
func TestResolveKeepsExactNumbers(t *testing.T) {
	var state refs.State
	require.NoError(t, json.Unmarshal([]byte(`{"order":{"id":`+aboveFloat+`,"big":`+aboveInt64+`,"frac":`+longFrac+`}}`), &state))
	input, err := decodeNumbers(`{"ref":` + aboveFloat + `}`)
	require.NoError(t, err)

	got, errs := refs.Resolve(map[string]any{
		"id": "†state.order.id", "big": "†state.order.big", "frac": "†state.order.frac",
		"from_input": "†input.ref", "whole": "†state.order",
	}, state, input)
	require.Empty(t, errs)
	b, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, `{"id":`+aboveFloat+`,"big":`+aboveInt64+`,"frac":`+longFrac+`,"from_input":`+aboveFloat+
		`,"whole":{"id":`+aboveFloat+`,"big":`+aboveInt64+`,"frac":`+longFrac+`}}`, string(b))
	require.Contains(t, string(b), `"id":`+aboveFloat)

	v, ok := refs.Lookup(st("order", "id"), state, nil)
	require.True(t, ok, "Lookup takes a State root")
	require.Equal(t, int64(9007199254740993), v)

	// Written by a call's _outputPath, read by the next call.
	p, err := refs.ParseOutputPath("†state.next")
	require.NoError(t, err)
	result, err := decodeNumbers(`{"id":` + aboveFloat + `}`)
	require.NoError(t, err)
	refs.Write(state, p, refs.Exact(result))
	got, errs = refs.Resolve(map[string]any{"id": "†state.next.id"}, state, nil)
	require.Empty(t, errs)
	b, _ = json.Marshal(got)
	require.Equal(t, `{"id":`+aboveFloat+`}`, string(b))
}

func TestSameDecimal(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1e+21", "1000000000000000000000", true},
		{"2.5", "2.50", true},
		{"2.5", "25e-1", true},
		{"0.001", "1e-3", true},
		{"-0", "0.0", true},
		{"0", "0e10", true},
		{"100", "1E2", true},
		{"0.1", "0.10000000000000001", false},
		{"9.007199254740992e+15", "9007199254740993", false},
		{"-1", "1", false},
		{"1e1000000001", "1e1000000001", false}, // exponents past a billion are refused
		{"1x", "1x", false},
		{"", "", false},
		{".", ".", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, refs.SameDecimal(tt.a, tt.b), "%q %q", tt.a, tt.b)
		require.Equal(t, tt.want, refs.SameDecimal(tt.b, tt.a), "%q %q", tt.b, tt.a)
	}
}
