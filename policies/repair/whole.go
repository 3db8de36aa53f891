package repair

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/unstuck-dev/unstuck/policies"
)

// TextRepair is the outcome of RepairText: the arguments as a JSON
// object, or why they could not be read as one.
type TextRepair struct {
	// JSON is the arguments as a canonical JSON object; nil when they
	// could not be read without a guess.
	JSON    []byte
	Repairs []Applied
	Reason  string
}

// maxEncodings bounds how many times arguments may have been encoded as
// a JSON string inside a JSON string.
const maxEncodings = 3

// shownText bounds the text a whole-argument repair records as its
// before and after values (the repair node keeps both in full).
const shownText = 256

// RepairText reads a call's arguments text that is not a JSON object
// into one, without a model, by two rules:
//
//   - decode_json_string: the arguments are a JSON string whose content
//     is a JSON object ("{\"a\":1}"), at most maxEncodings deep. Certain
//     when the whole text is that one string: nothing is added or lost.
//   - lenient_json: the text is JSON but for single quotes, comments,
//     trailing commas, Python's True/False/None or raw control
//     characters in strings (see lenientJSON for when it is certain).
//
// Text over MaxBytes, invalid UTF-8, or a result nested deeper than
// MaxDepth is refused with a reason; so is text that already is a JSON
// object (nothing to repair).
func RepairText(text string) TextRepair {
	switch {
	case len(text) > MaxBytes:
		return TextRepair{Reason: fmt.Sprintf("arguments are larger than %d bytes: too large to repair", MaxBytes)}
	case !utf8.ValidString(text):
		return TextRepair{Reason: "arguments are not valid UTF-8"}
	}
	cur := strings.TrimSpace(text)
	var applied []Applied
	if inner, ok := unfence(cur); ok {
		applied = append(applied, Applied{Strategy: StrategyLenientJSON, Path: "", Before: clip(cur), After: clip(inner),
			Reason: "arguments in a Markdown code block: the block's content taken"})
		cur = inner
	}
	for range maxEncodings + 1 {
		if !json.Valid([]byte(cur)) {
			out, fixes, ok := lenientJSON(cur)
			if !ok {
				return TextRepair{Reason: "arguments are not JSON, nor JSON with only single quotes, comments, trailing commas or Python literals"}
			}
			applied = append(applied, Applied{Strategy: StrategyLenientJSON, Path: "", Before: clip(cur), After: clip(out),
				Reason: "lenient JSON rewritten as JSON: " + strings.Join(fixes, ", ")})
			cur = out
			continue
		}
		v, err := decodeJSON([]byte(cur))
		if err != nil {
			return TextRepair{Reason: "arguments are not JSON: " + err.Error()}
		}
		switch v := v.(type) {
		case map[string]any:
			if len(applied) == 0 {
				return TextRepair{Reason: "arguments are already a JSON object"}
			}
			if measure(v).deep {
				return TextRepair{Reason: sizeReason(shape{deep: true}, 0)}
			}
			b, err := canonical(v)
			if err != nil {
				return TextRepair{Reason: "arguments are not JSON: " + err.Error()}
			}
			return TextRepair{JSON: b, Repairs: applied}
		case string:
			inner := strings.TrimSpace(v)
			if !strings.HasPrefix(inner, "{") && !strings.HasPrefix(inner, `"`) {
				return TextRepair{Reason: "arguments are a JSON string, not an object"}
			}
			applied = append(applied, Applied{Strategy: StrategyDecodeString, Path: "", Before: clip(cur), After: clip(inner),
				Reason: "arguments encoded as a JSON string: decoded"})
			cur = inner
		default:
			return TextRepair{Reason: "arguments must be a JSON object"}
		}
	}
	return TextRepair{Reason: fmt.Sprintf("arguments encoded more than %d times", maxEncodings)}
}

// unfence answers the content of text that is one Markdown code block
// ("```json\n{...}\n```", the language tag optional). Certain when the
// whole text is that block and nothing else: the fences are not part of
// any JSON, and the content is then read as JSON like any other text.
func unfence(text string) (string, bool) {
	if !strings.HasPrefix(text, "```") || !strings.HasSuffix(text, "```") || len(text) < 6 {
		return "", false
	}
	body := text[3 : len(text)-3]
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return "", false
	}
	if tag := strings.TrimSpace(body[:nl]); tag != "" && tag != "json" && tag != "JSON" {
		return "", false
	}
	body = strings.TrimSpace(body[nl+1:])
	if strings.Contains(body, "```") || !strings.HasPrefix(body, "{") {
		return "", false
	}
	return body, true
}

// clip shortens a text recorded as a before or after value.
func clip(s string) string {
	if cut := policies.CutText(s, shownText); len(cut) < len(s) {
		return cut + "…"
	}
	return s
}

// wrapperKeys are the names models wrap a call's arguments in.
var wrapperKeys = []string{"arguments", "parameters", "input"}

// unwrap answers the arguments inside one extra object
// ({"arguments": {...}}, {"parameters": {...}}, {"input": {...}}), the
// object inside possibly sent as a JSON string (the wire form of
// "arguments").
//
// Certain when the object has that one property, the arguments as they
// are fail the schema, and either the object inside validates as it is,
// or every property of it is one the schema declares (so it is the call's
// arguments, and the repairs that follow work on them). A wrapper the
// schema declares itself (a tool with a parameter named "input") is taken
// for a wrapper only when that parameter cannot be an object and every
// property inside is declared. Otherwise it is left alone.
func (s *session) unwrap() (map[string]any, Applied, bool) {
	if len(s.args) != 1 || s.disabled(StrategyUnwrapArguments) {
		return nil, Applied{}, false
	}
	root := s.doc.at(nil)
	declared := root.declared()
	for _, key := range wrapperKeys {
		inner, encoded := wrapperHolds(s.args[key])
		if inner == nil {
			continue
		}
		if _, viol := check(s.compiled, s.args); len(viol) == 0 {
			return nil, Applied{}, false
		}
		known := 0 // of inner's properties, those declared (counted over the schema's list: no map is ranged over)
		for _, d := range declared {
			if _, ok := inner[d]; ok {
				known++
			}
		}
		allDeclared := len(inner) > 0 && known == len(inner)
		if contains(declared, key) {
			if !allDeclared || acceptsObject(s.doc.at([]string{key}).types()) {
				continue
			}
		} else if _, viol := check(s.compiled, inner); len(viol) > 0 && !allDeclared {
			continue
		}
		why := fmt.Sprintf("arguments wrapped in {%q: {...}}: unwrapped", key)
		if encoded {
			why = fmt.Sprintf("arguments wrapped in {%q: \"{...}\"} as a JSON string: unwrapped and decoded", key)
		}
		return inner, Applied{Strategy: StrategyUnwrapArguments, Path: pointer([]string{key}), Before: key, Reason: why}, true
	}
	return nil, Applied{}, false
}

// wrapperHolds is the object a wrapper holds: an object, or a JSON string
// holding one (encoded). nil when it holds neither.
func wrapperHolds(v any) (inner map[string]any, encoded bool) {
	switch v := v.(type) {
	case map[string]any:
		return v, false
	case string:
		t := strings.TrimSpace(v)
		if len(t) > MaxBytes || !strings.HasPrefix(t, "{") {
			return nil, false
		}
		d, err := decodeJSON([]byte(t))
		if m, ok := d.(map[string]any); err == nil && ok && !measure(m).deep {
			return m, true
		}
	}
	return nil, false
}

// acceptsObject says whether a property of these types may be an object
// (no type named: anything may be).
func acceptsObject(types []string) bool {
	return len(types) == 0 || contains(types, "object")
}

// disabled reports whether opts turned a strategy off.
func (s *session) disabled(strategy string) bool {
	return contains(s.opts.Disabled, strategy)
}
