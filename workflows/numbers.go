package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/refs"
)

// How a run holds numbers. Edge conditions compare State's and the input's
// numbers, so how they are held decides which edge a run takes: runs
// recorded before exact numbers keep the float64 view they had.

// useNumbers decides, once per run, how numbers are held; a run recorded
// before exact numbers gets back the State it decoded then (every number
// of carried State a float64).
func (r *runner) useNumbers(ctx workflow.Context) {
	r.exactNumbers = versionOf(ctx, versionExactNumbers, 1) >= 1
	if !r.exactNumbers {
		r.run.State = refs.State(floatNumbers(map[string]any(r.run.State)).(map[string]any))
	}
}

// stateValue is a value as State holds it. Exact (refs.Exact): int64 for
// integers in range, float64 when its shortest form is the same decimal,
// json.Number (its text) otherwise; edge conditions compare the first two
// as numbers ("state.n == 2") and a json.Number only as text
// (string(state.id) == "123456789012345678901234567890"). Before exact
// numbers: int64 for integers in range, float64 otherwise.
func (r *runner) stateValue(v any) any {
	if r.exactNumbers {
		return refs.Exact(v)
	}
	return int64OrFloat(v)
}

// inputMap is the run's input for edge conditions, its numbers held as
// State's are.
func (r *runner) inputMap() map[string]any {
	if len(r.run.Input.Input) == 0 {
		return map[string]any{}
	}
	if !r.exactNumbers {
		m := map[string]any{}
		_ = json.Unmarshal(r.run.Input.Input, &m)
		return m
	}
	m := refs.State{}
	_ = json.Unmarshal(r.run.Input.Input, &m)
	if m == nil {
		return map[string]any{}
	}
	return m
}

// int64OrFloat is how State held numbers before exact numbers.
func int64OrFloat(v any) any {
	return rewriteNumbers(v, func(n any) any {
		x, ok := n.(json.Number)
		if !ok {
			return n
		}
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	})
}

// floatNumbers turns every number into a float64, as encoding/json decoded
// carried State before exact numbers.
func floatNumbers(v any) any {
	return rewriteNumbers(v, func(n any) any {
		switch x := n.(type) {
		case json.Number:
			f, _ := x.Float64()
			return f
		case int64:
			return float64(x)
		}
		return n
	})
}

// rewriteNumbers applies f to every leaf of a decoded JSON value, rewriting
// maps and slices in place.
func rewriteNumbers(v any, f func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x { // each entry is rewritten in place: order does not matter
			x[k] = rewriteNumbers(e, f)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = rewriteNumbers(e, f)
		}
		return x
	default:
		return f(v)
	}
}
