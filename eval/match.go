package eval

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Matches says whether output is the output e expects, and why not. A
// case without expect takes any output; a judge case's output is passed
// by its judge's verdict (passed), never here.
func Matches(e *Expect, output any) (bool, string) {
	if e == nil {
		return true, ""
	}
	want, err := normal(e.Output)
	if err != nil {
		return false, fmt.Sprintf("expect.output: %v", err)
	}
	got, err := normal(output)
	if err != nil {
		return false, fmt.Sprintf("output: %v", err)
	}
	switch e.Match {
	case MatchExact, "":
		if reflect.DeepEqual(want, got) {
			return true, ""
		}
		return false, fmt.Sprintf("output %s is not the expected %s", compact(got), compact(want))
	case MatchSubset:
		if path, ok := subset(want, got, "output"); !ok {
			return false, fmt.Sprintf("%s differs from the expected %s", path, compact(want))
		}
		return true, ""
	case MatchJudge:
		return false, "expect.match judge: only a judge run's verdict passes the output"
	}
	return false, fmt.Sprintf("expect.match: %q is not exact, subset or judge", e.Match)
}

// subset says whether every field of want is in got, equal; arrays are
// compared element by element, of the same length. path names the first
// place they differ.
func subset(want, got any, path string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return path + "." + k, false
			}
			if p, ok := subset(wv, gv, path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := subset(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	}
	return path, reflect.DeepEqual(want, got)
}

// normal is v as encoding/json decodes it (maps of string keys, numbers
// as float64), so a value read from YAML compares with one from JSON.
// Empty JSON text is no value.
func normal(v any) (any, error) {
	if raw, ok := v.(json.RawMessage); ok && len(raw) == 0 {
		return nil, nil
	}
	return viaJSON(v)
}

// viaJSON is v written as JSON (JSON text as it is) and read back by
// encoding/json; empty JSON text is refused.
func viaJSON(v any) (any, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(jsonable(v)); err != nil {
			return nil, err
		}
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// compact is v as one line of JSON, clipped for a report.
func compact(v any) string {
	b, _ := json.Marshal(v)
	const most = 200
	if len(b) > most {
		return string(b[:most]) + "…"
	}
	return string(b)
}
