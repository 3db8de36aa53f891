package repair

import (
	"encoding/json"
	"fmt"

	"github.com/unstuck-dev/unstuck/policies"
)

// MaxDepth is how deeply nested arguments may be for a repair: tool
// arguments are shallow, and a bound keeps every walk of them bounded.
const MaxDepth = 64

// MaxBytes is the largest canonical JSON form of arguments a repair works
// on: each round re-encodes and re-validates the whole argument set.
const MaxBytes = 1 << 20

// shape is what the bounded walk of a value found.
type shape struct {
	deep bool // nested deeper than MaxDepth
	big  bool // more values than MaxBytes could hold
}

// measure walks v to at most MaxDepth+1 levels and MaxBytes values (each
// JSON value takes at least one byte, so more cannot fit in MaxBytes).
// Both caps hold for any Go value, even a cyclic or widely shared one.
// When the value budget runs out only big is reported, so the answer
// never depends on the order maps are walked in.
func measure(v any) shape {
	budget := MaxBytes
	var s shape
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if budget <= 0 {
			return
		}
		budget--
		if depth > MaxDepth {
			s.deep = true
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for _, c := range v { // order-independent: only counts
				walk(c, depth+1)
			}
		case []any:
			for _, c := range v {
				walk(c, depth+1)
			}
		}
	}
	walk(v, 0)
	if budget <= 0 {
		return shape{big: true}
	}
	return s
}

// canonical is the JSON form of a value with sorted object keys (as
// encoding/json writes maps) and numbers kept as written: equal argument
// sets have equal bytes.
func canonical(v any) ([]byte, error) {
	return json.Marshal(v)
}

// decodeJSON reads JSON with numbers as json.Number, the form the schema
// validator and the workflow's arguments use.
func decodeJSON(b []byte) (any, error) { return policies.DecodeJSON(b) }

// normalize copies a decoded value (from YAML or JSON, any number type)
// into plain JSON values with json.Number numbers, by a JSON round trip.
func normalize(v any) (any, []byte, error) {
	b, err := canonical(v)
	if err != nil {
		return nil, nil, err
	}
	out, err := decodeJSON(b)
	if err != nil {
		return nil, nil, err
	}
	return out, b, nil
}

// sizeReason says why arguments of this shape and size are not repaired,
// or "" when they are within bounds.
func sizeReason(s shape, size int) string {
	switch {
	case s.big || size > MaxBytes:
		return fmt.Sprintf("arguments are larger than %d bytes of JSON: too large to repair", MaxBytes)
	case s.deep:
		return fmt.Sprintf("arguments nest deeper than %d levels: too deep to check or repair", MaxDepth)
	}
	return ""
}

// deepCopy copies a JSON value (maps and slices fresh, scalars shared).
// It is used on values already within the bounds above.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, c := range v {
			out[k] = deepCopy(c)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = deepCopy(c)
		}
		return out
	default:
		return v
	}
}
