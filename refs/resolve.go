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
	if s, ok := cur.(State); ok {
		cur = map[string]any(s)
	}
	for _, step := range p.Steps {
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
	out := resolve(args, "", state, input, &errs)
	return out, errs
}

func resolve(v any, at string, state, input any, errs *[]error) any {
	switch x := v.(type) {
	case string:
		ref, ok, err := Parse(x)
		if !ok {
			return x
		}
		if err != nil {
			*errs = append(*errs, fmt.Errorf("argument %s: %v", pointer(at), err))
			return x
		}
		for _, alt := range ref.Alts {
			if val, found := Lookup(alt, state, input); found {
				return val
			}
		}
		*errs = append(*errs, fmt.Errorf("argument %s: unresolved reference %s: no such value in the run", pointer(at), ref))
		return x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := make(map[string]any, len(x))
		for _, k := range keys {
			m[k] = resolve(x[k], at+"/"+escape(k), state, input, errs)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = resolve(e, at+"/"+strconv.Itoa(i), state, input, errs)
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
