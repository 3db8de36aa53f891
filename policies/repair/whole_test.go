package repair

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRepairText(t *testing.T) {
	cases := []struct {
		name, in, out string
		strategies    []string
	}{
		{"double-encoded", `"{\"origin\": \"LHR\", \"passengers\": 2}"`, `{"origin":"LHR","passengers":2}`, []string{StrategyDecodeString}},
		{"double-encoded with spaces", ` " {\"a\": 1} " `, `{"a":1}`, []string{StrategyDecodeString}},
		{"encoded twice", encoded(`{"a": 1}`, 2), `{"a":1}`, []string{StrategyDecodeString, StrategyDecodeString}},
		{"encoded three times", encoded(`{"a": 1}`, 3), `{"a":1}`, []string{StrategyDecodeString, StrategyDecodeString, StrategyDecodeString}},
		{"Python dict", `{'a': True, 'b': None, 'c': [1, 2,]}`, `{"a":true,"b":null,"c":[1,2]}`, []string{StrategyLenientJSON}},
		{"single-quoted JSON string", `'{"a": 1}'`, `{"a":1}`, []string{StrategyLenientJSON, StrategyDecodeString}},
		{"encoded Python dict", `"{'a': 1}"`, `{"a":1}`, []string{StrategyDecodeString, StrategyLenientJSON}},
		{"big number kept", `{'n': 123456789012345678901234567890}`, `{"n":123456789012345678901234567890}`, []string{StrategyLenientJSON}},
		{"a Markdown code block", "```json\n{\"a\": 1}\n```", `{"a":1}`, []string{StrategyLenientJSON}},
		{"a code block without a tag, Python inside", "```\n{'a': True}\n```", `{"a":true}`, []string{StrategyLenientJSON, StrategyLenientJSON}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := RepairText(c.in)
			require.Empty(t, r.Reason)
			require.Equal(t, c.out, string(r.JSON))
			var got []string
			for _, a := range r.Repairs {
				got = append(got, a.Strategy)
				require.NotEmpty(t, a.Reason)
				require.NotNil(t, a.Before)
			}
			require.Equal(t, c.strategies, got)
		})
	}
}

func TestRepairTextRefuses(t *testing.T) {
	cases := []struct{ name, in, reason string }{
		{"already an object", `{"a": 1}`, "already a JSON object"},
		{"a string, not an object", `"hello"`, "not an object"},
		{"an encoded array", `"[1, 2]"`, "not an object"},
		{"an array", `[1, 2]`, "must be a JSON object"},
		{"a number", `42`, "must be a JSON object"},
		{"cut off", `{"a": 1`, "not JSON"},
		{"encoded and cut off", `"{\"a\": 1"`, "not JSON"},
		{"encoded four times", encoded(`{}`, 4), "more than 3 times"},
		{"invalid UTF-8", "{'a': '\xff'}", "UTF-8"},
		{"too large", `{'a': '` + strings.Repeat("x", MaxBytes) + `'}`, "too large"},
		{"too deep", strings.Repeat(`{'a': `, MaxDepth+1) + `1` + strings.Repeat(`}`, MaxDepth+1), "deeper"},
		{"empty", ``, "not JSON"},
		{"a code block of another language", "```python\n{'a': 1}\n```", "not JSON"},
		{"text around a code block", "Here you go:\n```json\n{\"a\": 1}\n```", "not JSON"},
		{"two code blocks", "```json\n{\"a\": 1}\n```\n```json\n{\"b\": 2}\n```", "not JSON"},
		{"a code block on one line", "```{\"a\": 1}```", "not JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := RepairText(c.in)
			require.Nil(t, r.JSON)
			require.Empty(t, r.Repairs)
			require.Contains(t, r.Reason, c.reason)
		})
	}
}

// encoded is text encoded n times as a JSON string.
func encoded(text string, n int) string {
	for range n {
		b, _ := json.Marshal(text)
		text = string(b)
	}
	return text
}

// A large text is clipped in the before and after values.
func TestRepairTextClips(t *testing.T) {
	long := strings.Repeat("é", 400)
	r := RepairText(`{'a': '` + long + `'}`)
	require.Empty(t, r.Reason)
	before := r.Repairs[0].Before.(string)
	require.LessOrEqual(t, len(before), shownText+len("…"))
	require.True(t, strings.HasSuffix(before, "…"))
	require.Contains(t, string(r.JSON), long)
}

func TestUnwrapArguments(t *testing.T) {
	schema := schemaOf(t, flightSchema)
	inner := `{"origin": "LHR", "destination": "CDG", "departure_date": "2024-10-26", "passengers": 2}`
	for _, key := range []string{"arguments", "parameters", "input"} {
		t.Run(key, func(t *testing.T) {
			args := obj(t, `{"`+key+`": `+inner+`}`)
			r := Repair(schema, args, Options{Today: today})
			require.True(t, r.Valid, r.Reason)
			require.Equal(t, canon(t, obj(t, inner)), canon(t, r.Args))
			require.Equal(t, []string{StrategyUnwrapArguments}, strategies(r))
			require.Equal(t, "/"+key, r.Repairs[0].Path)
			require.Equal(t, key, r.Repairs[0].Before)
		})
	}
}

// inputSchema is a tool with a string parameter named like a wrapper.
const inputSchema = `{"type": "object", "properties": {"command": {"type": "string"}, "input": {"type": "string"}}, "required": ["command"], "additionalProperties": false}`

// Unwrapped too: the inner object needs repairs of its own but every
// property of it is declared; the inner object sent as a JSON string (the
// wire form of "arguments"); a wrapper named like a declared parameter
// that cannot be an object, holding declared properties.
func TestUnwrapArgumentsThenRepairs(t *testing.T) {
	inner := `{"origin": "LHR", "destination": "CDG", "departure_date": "2024-10-26", "passengers": 2}`
	cases := []struct {
		name, schema, args, want string
		then                     []string
	}{
		{"the inner object needs a repair", flightSchema,
			`{"arguments": {"origin": "LHR", "destination": "CDG", "departure_date": "Oct 26, 2024", "passengers": 2}}`, inner, []string{StrategyReformatDate}},
		{"the inner object as a JSON string", flightSchema,
			`{"arguments": "` + strings.ReplaceAll(inner, `"`, `\"`) + `"}`, inner, nil},
		{"a declared string parameter used as the wrapper", inputSchema,
			`{"input": {"command": "cat", "input": "hello"}}`, `{"command": "cat", "input": "hello"}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Repair(schemaOf(t, c.schema), obj(t, c.args), Options{Today: today})
			require.True(t, r.Valid, r.Reason)
			require.Equal(t, canon(t, obj(t, c.want)), canon(t, r.Args))
			require.Equal(t, append([]string{StrategyUnwrapArguments}, c.then...), strategies(r))
		})
	}
}

// An unwrap that is not certain is not made.
func TestUnwrapArgumentsRefuses(t *testing.T) {
	inner := `{"origin": "LHR", "destination": "CDG", "departure_date": "2024-10-26", "passengers": 2}`
	cases := []struct {
		name, schema, args string
		opts               Options
	}{
		{"the inner object is invalid and holds a property the schema does not declare", flightSchema,
			`{"arguments": {"origin": "LHR", "destination": "CDG", "departure_date": "Oct 26, 2024", "passengers": 2, "seat_colour": "red"}}`, Options{}},
		{"a declared string parameter holding an undeclared property", inputSchema,
			`{"input": {"command": "cat", "verbose": true}}`, Options{}},
		{"the inner value is a string that is not an object", flightSchema, `{"arguments": "LHR to CDG"}`, Options{}},
		{"the inner object is empty", flightSchema, `{"arguments": {}}`, Options{}},
		{"the wrapper is a parameter", `{"type": "object", "properties": {"input": {"type": "object", "properties": {"q": {"type": "string"}}}}, "required": ["input", "q"]}`,
			`{"input": {"q": "x"}}`, Options{}},
		{"another property beside it", flightSchema, `{"arguments": ` + inner + `, "x": 1}`, Options{}},
		{"not a wrapper name", flightSchema, `{"args": ` + inner + `}`, Options{}},
		{"disabled", flightSchema, `{"arguments": ` + inner + `}`, Options{Disabled: []string{StrategyUnwrapArguments}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Today = today
			r := Repair(schemaOf(t, c.schema), obj(t, c.args), c.opts)
			require.NotContains(t, strategies(r), StrategyUnwrapArguments)
			require.False(t, r.Valid && len(r.Repairs) > 0 && r.Repairs[0].Strategy == StrategyUnwrapArguments)
		})
	}
}
