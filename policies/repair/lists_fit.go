package repair

import "strings"

// splitList splits a list written as text into the items of the array at
// steps, when that is certain (lists.go): the text splits, and the items,
// as the array, fit the schema after the repairs the rules make with
// certainty. Whether they fit is found by a nested repair of a copy of
// the arguments with the items in place; it does not split lists itself,
// so it never recurses.
func (f *fixer) splitList(steps []string, t string) ([]any, string, bool) {
	parts, sep, ok := splitText(t)
	if !ok {
		return nil, "", false
	}
	itemNodes := f.doc.at(child(steps, "0"))
	if ts := itemNodes.types(); (contains(ts, "number") || contains(ts, "integer")) && !numbersSplitCertain(t, sep) {
		return nil, "", false
	}
	items := make([]any, len(parts))
	for i, p := range parts {
		items[i] = p
	}
	if !f.fits(steps, items, true) {
		return nil, "", false
	}
	if constrains(itemNodes) && f.fits(steps, []any{strings.TrimSpace(t)}, false) {
		return nil, "", false // the whole text is also an allowed item
	}
	return items, sep, true
}

// fits reports whether the arguments, with v at steps, have no failure at
// or under steps: after the certain repairs of a nested repair (repaired),
// or as they are.
func (f *fixer) fits(steps []string, v any, repaired bool) bool {
	cand, _ := deepCopy(f.args).(map[string]any)
	if cand == nil || !set(cand, steps, deepCopy(v)) {
		return false
	}
	if repaired {
		canon, err := canonical(cand)
		if err != nil || len(canon) > MaxBytes {
			return false
		}
		opts := f.opts
		opts.nested, opts.MaxRounds = true, DefaultMaxRounds
		s := &session{compiled: f.compiled, doc: f.doc, opts: opts, args: cand, canon: canon, seen: seen{}}
		s.seen.add(canon)
		cand = s.run().Args
	}
	issues, _ := check(f.compiled, cand)
	for _, is := range issues {
		if len(is.steps) >= len(steps) && equalSteps(is.steps[:len(steps)], steps) {
			return false
		}
	}
	return true
}

// constrains reports an item schema that lists or patterns its values, so
// that a whole text being one allowed item says something.
func constrains(ns nodes) bool {
	for _, k := range []string{"enum", "const", "pattern", "format"} {
		if _, ok := ns.first(k); ok {
			return true
		}
	}
	return false
}

func equalSteps(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
