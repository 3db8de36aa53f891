package repair

import (
	"encoding/json"
	"math/big"
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// edit is one change to the arguments a strategy proposes.
type edit struct {
	at      []string
	remove  bool
	value   any
	applied Applied
}

// fixer proposes edits for the failures of one argument set; it reads the
// arguments as they are when it is asked, so a repair made earlier in the
// round is seen by the next.
type fixer struct {
	args     map[string]any
	doc      schemaDoc
	compiled *jsonschema.Schema
	opts     Options
}

// fixer is a fixer of the session's arguments.
func (s *session) fixer() fixer {
	return fixer{args: s.args, doc: s.doc, compiled: s.compiled, opts: s.opts}
}

// propose picks the strategy for one failure by its kind and the schema
// at its location, and answers its edits (none: no repair applies).
func (f *fixer) propose(is issue) []edit {
	v, ok := get(f.args, is.steps)
	if !ok {
		return nil
	}
	switch k := is.kind.(type) {
	case *kind.Type:
		if e := f.dropNull(is.steps, v); e != nil {
			return e
		}
		return f.coerce(is.steps, v, k.Want)
	case *kind.Format:
		if out, why, ok := reformatDate(v, k.Want, f.opts.Today, f.opts.Rules); ok {
			return f.one(is.steps, StrategyReformatDate, v)(out, why, ok)
		}
		if contains(f.opts.Disabled, StrategyRelativeDate) {
			return nil
		}
		return f.one(is.steps, StrategyRelativeDate, v)(resolveRelative(v, k.Want, f.opts.Today))
	case *kind.Enum:
		return f.one(is.steps, StrategyCorrectEnum, v)(correctEnum(v, k.Want, f.opts.Rules))
	case *kind.Const:
		return f.one(is.steps, StrategyCorrectEnum, v)(correctEnum(v, []any{k.Want}, f.opts.Rules))
	case *kind.Minimum:
		return f.clamp(is.steps, v, bound{atLeast, k.Want})
	case *kind.Maximum:
		return f.clamp(is.steps, v, bound{atMost, k.Want})
	case *kind.ExclusiveMinimum:
		return f.clamp(is.steps, v, bound{above, k.Want})
	case *kind.ExclusiveMaximum:
		return f.clamp(is.steps, v, bound{below, k.Want})
	case *kind.MaxLength:
		minLen := 0
		if n, ok := intKeyword(f.doc.at(is.steps), "minLength"); ok {
			minLen = n
		}
		out, why, ok := trim(v, k.Want, minLen)
		return f.one(is.steps, StrategyTrim, v)(out, why, ok)
	case *kind.Required:
		return f.defaults(is.steps, v, k.Missing)
	case *kind.AdditionalProperties:
		return f.extras(is.steps, v, k.Properties)
	case *kind.FalseSchema:
		// A property whose schema is false (properties: {x: false}, or
		// unevaluatedProperties: false) may not be there at all.
		if len(is.steps) == 0 {
			return nil
		}
		parent, _ := get(f.args, is.steps[:len(is.steps)-1])
		if _, ok := parent.(map[string]any); !ok {
			return nil
		}
		return []edit{{at: is.steps, remove: true, applied: Applied{
			Strategy: StrategyRemoveProperty, Path: pointer(is.steps), Before: deepCopy(v), Reason: removeReason}}}
	}
	return nil
}

// one turns a strategy's answer into a single replacing edit. The root
// is never replaced: the arguments stay an object.
func (f *fixer) one(steps []string, strategy string, before any) func(any, string, bool) []edit {
	return func(after any, why string, ok bool) []edit {
		if !ok || len(steps) == 0 {
			return nil
		}
		return []edit{{at: steps, value: after, applied: Applied{
			Strategy: strategy, Path: pointer(steps), Before: deepCopy(before), After: deepCopy(after), Reason: why}}}
	}
}

// coerce converts a value of the wrong type (coerce.go), knowing its
// location: the schema there, the object holding it, its items.
func (f *fixer) coerce(steps []string, v any, want []string) []edit {
	c := coercion{rules: f.opts.Rules, ns: f.doc.at(steps)}
	if len(steps) > 0 {
		c.self = steps[len(steps)-1]
		if parent, ok := get(f.args, steps[:len(steps)-1]); ok {
			c.siblings, _ = parent.(map[string]any)
		}
		if !f.opts.nested {
			c.list = func(s string) (coerced, bool) { return f.textToArray(steps, s) }
		}
	}
	out, ok := c.convert(v, want)
	return f.one(steps, out.strategy, v)(out.value, out.why, ok)
}

func (f *fixer) clamp(steps []string, v any, b bound) []edit {
	out, why, ok := clamp(v, b, f.doc.at(steps).integer())
	return f.one(steps, StrategyClamp, v)(out, why, ok)
}

// defaults fills missing properties that have a default.
func (f *fixer) defaults(steps []string, v any, missing []string) []edit {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	names := append([]string(nil), missing...)
	sort.Strings(names)
	var out []edit
	for _, name := range names {
		if _, ok := obj[name]; ok {
			continue // renamed into place earlier this round
		}
		at := child(steps, name)
		if d, why, ok := defaultFor(f.doc.at(at)); ok {
			out = append(out, edit{at: at, value: d, applied: Applied{
				Strategy: StrategyDefault, Path: pointer(at), After: deepCopy(d), Reason: why}})
		}
	}
	return out
}

// extras renames or removes the properties the schema forbids.
func (f *fixer) extras(steps []string, v any, props []string) []edit {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var present []string
	for _, p := range props {
		if _, ok := obj[p]; ok {
			present = append(present, p)
		}
	}
	places, _ := placeExtras(obj, present, f.doc.at(steps).declared())
	var out []edit
	for _, p := range places {
		from := child(steps, p.from)
		if p.to == "" {
			out = append(out, edit{at: from, remove: true, applied: Applied{
				Strategy: StrategyRemoveProperty, Path: pointer(from), Before: deepCopy(obj[p.from]), Reason: removeReason}})
			continue
		}
		to := child(steps, p.to)
		out = append(out,
			edit{at: from, remove: true},
			edit{at: to, value: obj[p.from], applied: Applied{
				Strategy: StrategyRenameProperty, Path: pointer(from), Before: p.from, After: p.to, Reason: renameReason(p.from, p.to)}})
	}
	return out
}

// intKeyword reads a whole-number keyword such as minLength.
func intKeyword(ns nodes, key string) (int, bool) {
	v, ok := ns.first(key)
	if !ok {
		return 0, false
	}
	r, ok := numberValue(v)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return int(r.Num().Int64()), true
}

// numberValue reads a number held in a normalized schema.
func numberValue(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return numberRat(n)
}
