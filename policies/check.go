package policies

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"

	"github.com/unstuck-dev/unstuck/signals"
)

// Unverified: the tool answered success, but the call failed its check
// (the tool's result_schema or verify): a silent failure, caught.
const Unverified Class = "unverified"

// OutcomeUnknown: the tool answered success, but its read-back could not
// read (its tool down or timed out), so whether the call took effect is
// not known. Not a failed check: a write held so is never run again
// until a read-back can tell.
const OutcomeUnknown Class = "outcome_unknown"

// ReadBackAnswered says whether a read-back that failed with this class
// still answered about what it was asked: a refusal of the thing (not
// found, a conflict, arguments it rejects) says the checked call did not
// do what it claimed, so the call is unverified. Any other failure (the
// read tool down, timed out, its breaker open, its credentials refused)
// could not read, and leaves the call's outcome unknown.
func ReadBackAnswered(c Class) bool {
	return c == Persistent || c == InvalidArgs
}

// Seen is a value a check read.
type Seen = signals.Seen

// maxSeenValue bounds a value quoted in a check's reason.
const maxSeenValue = 120

// SeenValues are the values a check's expression reads from args and
// result, in the order the expression names them: each chain of fields
// (result.booking.status, args.dates[0]) once, and not also its prefixes.
// A path the values do not have is null.
func SeenValues(tree ast.Node, args, result any) []Seen {
	var paths []string
	ast.Walk(&tree, visitor(func(n ast.Node) {
		if p, ok := chain(n); ok && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}))
	var seen []Seen
	for _, p := range paths {
		if prefixOfAnother(p, paths) {
			continue
		}
		v, _ := valueAt(p, args, result)
		seen = append(seen, Seen{Path: p, Value: plainJSON(v)})
	}
	return seen
}

// plainJSON is v as JSON with <, > and & as they are: the reason quotes
// it to the model and to people, not to an HTML page.
func plainJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

type visitor func(ast.Node)

func (f visitor) Visit(n *ast.Node) { f(*n) }

// chain is the path a node reads when it is args or result followed by
// constant fields and indexes.
func chain(n ast.Node) (string, bool) {
	switch x := n.(type) {
	case *ast.IdentifierNode:
		if x.Value == "args" || x.Value == "result" {
			return x.Value, true
		}
	case *ast.MemberNode:
		base, ok := chain(x.Node)
		if !ok {
			return "", false
		}
		switch p := x.Property.(type) {
		case *ast.StringNode:
			return base + "." + p.Value, true
		case *ast.IntegerNode:
			return base + "[" + strconv.Itoa(p.Value) + "]", true
		}
	}
	return "", false
}

func prefixOfAnother(p string, paths []string) bool {
	for _, q := range paths {
		if strings.HasPrefix(q, p+".") || strings.HasPrefix(q, p+"[") {
			return true
		}
	}
	return false
}

// valueAt follows a chain's fields and indexes from args or result.
func valueAt(path string, args, result any) (any, bool) {
	steps := strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' || r == ']' })
	cur := result
	if steps[0] == "args" {
		cur = args
	}
	for _, s := range steps[1:] {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[s]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// ConditionFailed is the reason a call that failed its verify condition
// gives the model: the condition, and what it read.
func ConditionFailed(what, condition string, seen []Seen) string {
	why := fmt.Sprintf("%s %q is false", what, condition)
	if len(seen) == 0 {
		return why
	}
	parts := make([]string, len(seen))
	for i, s := range seen {
		parts[i] = s.Path + " = " + shorten(string(s.Value))
	}
	return why + ": " + strings.Join(parts, ", ")
}

// ResultSchemaFailed is the reason a result that does not match the
// tool's result_schema gives: an empty shape named as such, and the
// schema's own words.
func ResultSchemaFailed(result any, problem string) string {
	if shape := EmptyShape(result); shape != "" {
		return fmt.Sprintf("the tool answered %s where its result_schema wants content: %s", shape, problem)
	}
	return "the result does not match the tool's result_schema: " + problem
}

// EmptyShape names a result that holds nothing ({}, [], null, ""), or
// answers "".
func EmptyShape(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		if len(x) == 0 {
			return "an empty object {}"
		}
	case []any:
		if len(x) == 0 {
			return "an empty list []"
		}
	case string:
		if strings.TrimSpace(x) == "" {
			return "an empty string"
		}
	}
	return ""
}

func shorten(s string) string {
	if len(s) <= maxSeenValue {
		return s
	}
	return CutText(s, maxSeenValue) + "…"
}
