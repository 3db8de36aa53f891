package refs_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

// strings collects every string value (not key) inside decoded JSON.
func stringsIn(v any, into map[string]bool) {
	switch x := v.(type) {
	case string:
		into[x] = true
	case map[string]any:
		for _, e := range x {
			stringsIn(e, into)
		}
	case []any:
		for _, e := range x {
			stringsIn(e, into)
		}
	}
}

// at follows a JSON Pointer from Find (never the root itself).
func at(v any, ptr string) (any, bool) {
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func FuzzResolve(f *testing.F) {
	f.Add(`{"a":"†state.x","b":["†input.y","lit"],"c":{"d":"†state.x.0 || †input.y"}}`,
		`{"x":[1,"†state.z"]}`, `{"y":"Y"}`)
	f.Add(`{"a":"†state.missing","b":"†stat.bad"}`, `{}`, `null`)
	f.Add(`["†state.a || †state.b", 3, null, true]`, `{"b":{"c":"†input.q"}}`, `{}`)
	f.Add(`"†input.k"`, `null`, `{"k":"v"}`)
	f.Add(`{"~/":{"":"†state.~.0"}}`, `{"~":["first"]}`, `{}`)
	f.Fuzz(func(t *testing.T, argsJSON, stateJSON, inputJSON string) {
		var args, state, input any
		if json.Unmarshal([]byte(argsJSON), &args) != nil ||
			json.Unmarshal([]byte(stateJSON), &state) != nil ||
			json.Unmarshal([]byte(inputJSON), &input) != nil {
			t.Skip()
		}
		var before any
		require.NoError(t, json.Unmarshal([]byte(argsJSON), &before))

		got, errs := refs.Resolve(args, state, input)
		require.Equal(t, before, args, "args are not mutated")

		found := refs.Find(args)
		wantErrs := 0
		for _, fd := range found {
			if fd.Err != nil {
				wantErrs++
				continue
			}
			var want any
			exists := false
			for _, alt := range fd.Ref.Alts {
				if v, ok := refs.Lookup(alt, state, input); ok {
					want, exists = v, true
					break
				}
			}
			if !exists {
				wantErrs++
				continue
			}
			if _, isString := args.(string); isString {
				require.Equal(t, want, got)
				continue
			}
			v, ok := at(got, fd.At)
			require.True(t, ok, "pointer %s", fd.At)
			require.Equal(t, want, v, "pointer %s", fd.At)
		}
		require.Len(t, errs, wantErrs, "one error per malformed or unresolved reference")
		if len(found) == 0 {
			require.Equal(t, args, got, "no reference, nothing changes")
		}
		if len(errs) > 0 {
			return
		}
		fromRun := map[string]bool{}
		stringsIn(state, fromRun)
		stringsIn(input, fromRun)
		left := map[string]bool{}
		stringsIn(got, left)
		for s := range left {
			if _, ok, _ := refs.Parse(s); ok {
				require.True(t, fromRun[s], "reference %q left in the result", s)
			}
		}
	})
}
