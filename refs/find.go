package refs

import (
	"sort"
	"strconv"
)

// Found is a reference inside arguments, with where it stands as a JSON
// Pointer (for error messages).
type Found struct {
	At  string
	Ref Ref
	Err error // set when the string starts with † but is malformed
}

// Find walks decoded JSON arguments and answers every string that is a
// reference, in a deterministic order (object keys sorted).
func Find(v any) []Found { return findIn(v, runRoots) }

// findIn is Find for references whose roots are roots.
func findIn(v any, roots []string) []Found {
	var out []Found
	walk(v, "", func(at string, s string) {
		if ref, ok, err := parseIn(s, roots); ok {
			out = append(out, Found{At: at, Ref: ref, Err: err})
		}
	})
	return out
}

// Reads lists the paths a set of references may read.
func Reads(found []Found) []Path {
	var out []Path
	for _, f := range found {
		if f.Err == nil {
			out = append(out, f.Ref.Alts...)
		}
	}
	return out
}

func walk(v any, at string, visit func(at, s string)) {
	switch x := v.(type) {
	case string:
		visit(pointer(at), x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(x[k], at+"/"+escape(k), visit)
		}
	case []any:
		for i, e := range x {
			walk(e, at+"/"+strconv.Itoa(i), visit)
		}
	}
}

func pointer(at string) string {
	if at == "" {
		return "/"
	}
	return at
}

func escape(k string) string {
	out := make([]byte, 0, len(k))
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, k[i])
		}
	}
	return string(out)
}
