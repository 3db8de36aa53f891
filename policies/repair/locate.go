package repair

import (
	"sort"
	"strings"
)

// maxSearch bounds the search for a parameter named only by its key.
const maxSearch = 4096

// locate finds the argument a tool's message names: a top-level key, a
// JSON Pointer ("/passengers/adults"), a dotted path ("passengers.adults",
// "legs[0].date"), or else the one nested key of that name. exists says
// whether a value is there (a missing parameter has a location but no
// value); ok is false when the field cannot be placed.
func locate(args map[string]any, field string) (steps []string, exists, ok bool) {
	if field == "" {
		return nil, false, false
	}
	if _, ok := args[field]; ok {
		return []string{field}, true, true
	}
	var path []string
	switch {
	case strings.HasPrefix(field, "/"):
		for _, s := range strings.Split(field[1:], "/") {
			path = append(path, strings.NewReplacer("~1", "/", "~0", "~").Replace(s))
		}
	default:
		f := strings.NewReplacer("[", ".", "]", "").Replace(field)
		path = strings.Split(f, ".")
	}
	if _, ok := get(args, path); ok {
		return path, true, true
	}
	if len(path) == 1 {
		if found, ok := findKey(args, field); ok {
			return found, true, true
		}
	}
	if _, ok := get(args, path[:len(path)-1]); ok {
		return path, false, true
	}
	return nil, false, false
}

// findKey is the location of the one object member called key below the
// top level, looked for breadth first in sorted key order, within
// maxSearch values; two members of that name are ambiguous.
func findKey(args map[string]any, key string) ([]string, bool) {
	type item struct {
		steps []string
		v     any
	}
	queue := []item{{v: args}}
	var found []string
	hits, visited := 0, 0
	for len(queue) > 0 && visited < maxSearch {
		it := queue[0]
		queue = queue[1:]
		visited++
		switch v := it.v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				at := child(it.steps, k)
				if k == key && len(it.steps) > 0 {
					found, hits = at, hits+1
				}
				queue = append(queue, item{at, v[k]})
			}
		case []any:
			for i, c := range v {
				queue = append(queue, item{child(it.steps, itoa(i)), c})
			}
		}
	}
	return found, hits == 1
}
