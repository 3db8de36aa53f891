package approvalinbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
)

// maxShapeDepth bounds how deep a shape describes nested objects: deeper
// ones read "object", so a pathological argument cannot make a huge key.
const maxShapeDepth = 3

// Shape describes arguments by their keys and the kinds of their values,
// never the values: {"amount": 1200, "to": "acme"} is
// "{amount: number, to: string}". Keys are sorted, so two calls differing
// only in order share a shape; nested objects are described too, arrays
// and scalars by kind. Arguments that are not a JSON object are their kind.
func Shape(args json.RawMessage) string {
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

// groupIDLen is the hex digits of a group id: short enough to type, and
// 40 bits keep two groups of one inbox apart.
const groupIDLen = 10

// GroupID names the group of a tool and an argument shape: a short hash of
// both, the same for every listing, so a person can list, then answer the
// group with its id.
func GroupID(tool, shape string) string {
	sum := sha256.Sum256([]byte(tool + "\x00" + shape))
	return hex.EncodeToString(sum[:])[:groupIDLen]
}

// ValidGroupID says whether id has the form of a group id, so a typo is
// told apart before anything is listed.
func ValidGroupID(id string) bool {
	if len(id) != groupIDLen {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}
