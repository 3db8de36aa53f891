package refs

import (
	"fmt"
	"sort"
	"strconv"
)

// Lookup finds a path's value in the run's State or input (either may be
// a State or plain decoded JSON).
func Lookup(p Path, state, input any) (any, bool) {
	cur := state
	if p.Root == RootInput {
		cur = input
	}
	return at(cur, p.Steps)
}

// at is the value steps lead to from cur, if any.
func at(cur any, steps []string) (any, bool) {
	if s, ok := cur.(State); ok {
		cur = map[string]any(s)
	}
	for _, step := range steps {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[step]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			// Only the canonical decimal form names an index ("01" and
			// "+1" do not), so one element has one path.
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != step {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Resolve answers a copy of the arguments with every reference replaced
// by its value (the first alternative that exists), or the problems: a
// malformed reference, or one whose paths exist nowhere.
func Resolve(args any, state, input any) (any, []error) {
	var errs []error
	out := resolver{roots: runRoots, in: "the run", lookup: func(p Path) (any, bool) { return Lookup(p, state, input) }}.resolve(args, "", &errs)
	return out, errs
}

// resolver replaces the references of one set of roots.
type resolver struct {
	roots  []string
	in     string // where the values are, for errors
	lookup func(Path) (any, bool)
}

func (r resolver) resolve(v any, at string, errs *[]error) any {
	switch x := v.(type) {
	case string:
		ref, ok, err := parseIn(x, r.roots)
		if !ok {
			return x
		}
		if err != nil {
			*errs = append(*errs, fmt.Errorf("argument %s: %v", pointer(at), err))
			return x
		}
		for _, alt := range ref.Alts {
			if val, found := r.lookup(alt); found {
				return val
			}
		}
		*errs = append(*errs, fmt.Errorf("argument %s: unresolved reference %s: no such value in %s", pointer(at), ref, r.in))
		return x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := make(map[string]any, len(x))
		for _, k := range keys {
			m[k] = r.resolve(x[k], at+"/"+escape(k), errs)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = r.resolve(e, at+"/"+strconv.Itoa(i), errs)
		}
		return s
	default:
		return v
	}
}

// Write sets a State path to a value, creating the maps on the way and
// replacing anything that is not a map (last write wins).
func Write(state map[string]any, p Path, v any) {
	cur := state
	for _, step := range p.Steps[:len(p.Steps)-1] {
		next, ok := cur[step].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[step] = next
		}
		cur = next
	}
	cur[p.Steps[len(p.Steps)-1]] = v
}
