package repair

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/unstuck-dev/unstuck/config"
)

// fuzzSchemas are drawn by index: the flight tool, a calendar tool, a
// nested one, two that make repairs oscillate or recurse, and one with
// every keyword a strategy reads.
var fuzzSchemas = []string{
	flightSchema,
	`{"type": "object", "properties": {
		"title": {"type": "string", "minLength": 1, "maxLength": 10},
		"start": {"type": "string", "format": "date-time"},
		"minutes": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 600},
		"all_day": {"type": "boolean", "default": false},
		"attendees": {"type": "array", "items": {"type": "string"}, "maxItems": 3}},
		"required": ["title", "all_day"], "additionalProperties": false}`,
	`{"type": "object", "properties": {"trip": {"type": "object", "properties": {
		"legs": {"type": "array", "items": {"type": "object", "properties": {
			"date": {"type": "string", "format": "date"}, "seat": {"enum": ["aisle", "window", "middle"]}},
			"required": ["date"], "additionalProperties": false}},
		"pax": {"$ref": "#/$defs/pax"}}, "required": ["pax"]}},
		"$defs": {"pax": {"type": "integer", "minimum": 1, "maximum": 9, "default": 1}}}`,
	`{"type": "object", "properties": {"n": {"allOf": [{"type": "integer"}, {"type": "string"}]},
		"m": {"anyOf": [{"type": "integer", "minimum": 5}, {"type": "string", "enum": ["x"]}]}}}`,
	`{"type": "object", "$defs": {"deep": {"type": "array", "items": {"$ref": "#/$defs/deep"}}},
		"properties": {"d": {"$ref": "#/$defs/deep"}, "u": {"const": "fixed"}}, "unevaluatedProperties": false,
		"required": ["u"]}`,
	`{"type": "object", "properties": {
		"i": {"type": "integer", "minimum": -3.5, "maximum": 1e3}, "x": {"type": "number", "exclusiveMaximum": 1},
		"s": {"type": ["string", "null"], "maxLength": 2, "pattern": "^[a-z]*$"}, "b": {"type": "boolean"},
		"o": {"type": "object", "additionalProperties": {"type": "integer"}}, "e": {"enum": [1, "one", true, null]},
		"dt": {"type": "string", "format": "date"}}, "patternProperties": {"^z": {"type": "string"}},
		"additionalProperties": false}`,
	`{"type": "object", "properties": {
		"amount": {"type": "number"}, "currency": {"type": "string"}, "n": {"type": "integer", "maximum": 100},
		"rate": {"type": "number", "maximum": 1}, "pct": {"type": "number", "description": "percent off"},
		"on": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
		"ids": {"type": "array", "items": {"type": "integer"}},
		"kinds": {"type": "array", "items": {"enum": ["a b", "c", "a b, c"]}},
		"nested": {"type": "array", "items": {"type": "array", "items": {"type": "boolean"}}}},
		"additionalProperties": false}`,
}

// compiledFuzzSchemas are the schemas above, compiled once.
var compiledFuzzSchemas = func() []*jsonschema.Schema {
	out := make([]*jsonschema.Schema, len(fuzzSchemas))
	for i, s := range fuzzSchemas {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			panic(err)
		}
		c, err := config.CompileSchema("fuzz", m)
		if err != nil {
			panic(err)
		}
		out[i] = c
	}
	return out
}()

// Repair and RepairRejection never panic, never change their input, give
// the same answer twice, and answer either arguments that validate or a
// reason (with what is still wrong).
func FuzzRepair(f *testing.F) {
	for _, seed := range []struct {
		schema uint8
		args   string
		msg    string
	}{
		{0, `{"origin": "LHR", "destination": "CDG", "departure_date": "Oct 26, 2024", "passengers": "0", "class": "business class"}`, "Invalid date format for 'departure_date'"},
		{0, `{"origin": "NYC", "destination": "LAX", "departureDate": "2024-01-15", "pasengers": 3, "x": [1]}`, "Missing required parameter 'passengers'"},
		{1, `{"title": "  a very long title  ", "start": "2024-10-26 10:00", "minutes": 0, "attendees": "sam"}`, "'minutes' must be between 1 and 9"},
		{1, `{"title": 5, "all_day": "yes", "start": "Oct 26", "minutes": "600"}`, "expected integer for 'minutes'"},
		{2, `{"trip": {"legs": {"date": "26.10.2024", "seat": "Window Seat", "extra": 1}}}`, "value for 'trip.pax' must be >= 2"},
		{3, `{"n": "2", "m": "3"}`, "'n' has invalid type"},
		{4, `{"d": 1, "other": true}`, "must be one of [fixed]"},
		{5, `{"i": "-10", "x": 1, "s": "ABC", "b": "no", "o": {"k": "1"}, "e": "One", "dt": "2024-10-26T23:59:59+14:00", "zz": 1}`, "'s' does not match pattern ^[a-z]*$"},
		{5, `{"i": 1e400, "x": -1e-400, "e": "TRUE", "dt": "29 Feb 2023"}`, "'i' must be < 0"},
		{0, `{}`, ""},
		{6, `{"amount": "$1,250.50", "currency": "USD", "n": "1,250", "rate": "15%", "pct": "15 %", "on": "OFF"}`, "'n' has invalid type"},
		{6, `{"amount": "€75", "currency": "USD", "tags": "a, b; c", "ids": "1,2,3", "kinds": "A B, c"}`, ""},
		{6, `{"tags": "- x\n- y", "ids": "1,250", "nested": "yes, no", "on": 1, "n": "10.0"}`, "expected boolean for 'on'"},
		{6, `{"tags": "a,,b", "kinds": "a b, c", "amount": "1 250,50", "pct": "\u00ff15%"}`, ""},
		{0, `{"arguments": {"origin": "LHR", "destination": "CDG", "departure_date": "2024-10-26", "passengers": 1}}`, ""},
		{1, `{"input": {"title": "x", "all_day": true}}`, ""},
		{2, `{"trip": {"legs": [{"date": "tomorrow"}, {"date": "next Friday"}], "pax": 2}}`, ""},
	} {
		f.Add(seed.schema, []byte(seed.args), seed.msg)
	}
	f.Fuzz(func(t *testing.T, schemaIdx uint8, doc []byte, msg string) {
		v, err := decodeJSON(doc)
		args, isObj := v.(map[string]any)
		if err != nil || !isObj || !json.Valid(doc) {
			return
		}
		i := int(schemaIdx) % len(fuzzSchemas)
		var schema map[string]any
		if err := json.Unmarshal([]byte(fuzzSchemas[i]), &schema); err != nil {
			t.Fatal(err)
		}
		before := mustCanon(t, args)
		opts := Options{Today: today}
		for _, run := range []func() Result{
			func() Result { return Repair(schema, args, opts) },
			func() Result { return RepairRejection(schema, args, msg, opts) },
		} {
			r := run()
			if got := mustCanon(t, args); got != before {
				t.Fatalf("input changed: %s -> %s", before, got)
			}
			if r.Valid {
				if err := compiledFuzzSchemas[i].Validate(r.Args); err != nil {
					t.Fatalf("Valid, but %s does not validate: %v", mustCanon(t, r.Args), err)
				}
			} else if r.Reason == "" && len(r.Unrepaired) == 0 {
				t.Fatalf("neither valid nor explained: %+v", r)
			}
			if r.Reason == "" {
				t.Fatalf("no reason: %+v", r)
			}
			if a, b := describe(t, r), describe(t, run()); a != b {
				t.Fatalf("not deterministic:\n%s\n%s", a, b)
			}
		}
	})
}

// The rejection parser never panics, and what it reads is well formed.
func FuzzParseRejection(f *testing.F) {
	for _, s := range []string{
		"Invalid date format for 'departure_date'", "Missing required parameter: passengers",
		"Value for 'passengers' must be >= 1", "'t' must be between -1.5 and 2e3", "'class' must be one of [a, 'b', \"c\"]",
		"must be one of ()", "expected integer for `n`", "'p' does not match pattern '", "'x' must be positive",
		"\xff'\xfe' is required", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		hints := ParseRejection(msg)
		if len(hints) > maxHints {
			t.Fatalf("%d hints", len(hints))
		}
		for _, h := range hints {
			switch h.Kind {
			case HintMin, HintMax:
				if _, ok := parseNumber(h.Bound); !ok {
					t.Fatalf("bound %q of %q is not a number", h.Bound, msg)
				}
			case HintDate, HintMissing, HintEnum, HintType, HintPattern:
			default:
				t.Fatalf("kind %q", h.Kind)
			}
		}
	})
}

func mustCanon(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// describe is a result as text, to compare two of them.
func describe(t *testing.T, r Result) string {
	s := fmt.Sprintf("%v|%s|%s|%s|", r.Valid, r.Reason, mustCanon(t, r.Args), mustCanon(t, r.Repairs))
	for _, v := range r.Unrepaired {
		s += v.String() + ";"
	}
	return s
}
