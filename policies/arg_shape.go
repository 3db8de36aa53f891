package policies

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// maxShapeDepth bounds how deep a shape describes nested objects: deeper
// ones read "object", so a pathological argument cannot make a huge key.
const maxShapeDepth = 3

// ArgShape describes arguments by their keys and the kinds of their values,
// never the values: {"amount": 1200, "to": "acme"} is
// "{amount: number, to: string}". Keys are sorted, so two calls differing
// only in order share a shape; nested objects are described too, arrays
// and scalars by kind. Arguments that are not a JSON object are their kind.
func ArgShape(args json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if len(bytes.TrimSpace(args)) == 0 || dec.Decode(&v) != nil {
		return "{}"
	}
	return shapeOf(v, 0)
}

func shapeOf(v any, depth int) string {
	switch x := v.(type) {
	case map[string]any:
		if depth >= maxShapeDepth {
			return "object"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + shapeOf(x[k], depth+1)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "unknown"
}
