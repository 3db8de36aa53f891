package repair

import "strings"

// textToArray makes the array at steps from a text that is not one word
// (lists.go): the items it splits into, or the text as the one item
// when it has no separator and the item schema lists or patterns its
// values and the text then fits it; otherwise nothing (the model).
func (f *fixer) textToArray(steps []string, s string) (coerced, bool) {
	t := strings.TrimSpace(s)
	if hasListSeparator(t) {
		items, sep, ok := f.splitList(steps, t)
		if !ok {
			return coerced{}, false
		}
		return coerced{value: items, strategy: StrategySplitList, why: "a list written as text: split on " + sep}, true
	}
	if !constrains(f.doc.at(child(steps, "0"))) || !f.fits(steps, []any{s}, true) {
		return coerced{}, false
	}
	return wrapped(s), true
}

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
	ts := itemNodes.types()
	numbers := contains(ts, "number") || contains(ts, "integer")
	free := !constrains(itemNodes) && (len(ts) == 0 || contains(ts, "string"))
	if free && sep != "newlines" && !allPlainWords(parts) {
		return nil, "", false // a separator that may be inside one item
	}
	if (numbers || free && allNumbers(parts)) && !numbersSplitCertain(t, sep) {
		return nil, "", false // "1,250" for strings too
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

func allPlainWords(parts []string) bool {
	for _, p := range parts {
		if !plainWord(p) {
			return false
		}
	}
	return true
}

func allNumbers(parts []string) bool {
	for _, p := range parts {
		if _, ok := parseNumber(p); !ok {
			return false
		}
	}
	return true
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
