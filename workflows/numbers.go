package workflows

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/refs"
)

// How a run holds numbers. Edge conditions compare State's and the input's
// numbers, so how they are held decides which edge a run takes: exactly
// (refs.Exact).

// stateValue is a value as State holds it (refs.Exact): int64 for
// integers in range, float64 when its shortest form is the same decimal,
// json.Number (its text) otherwise; edge conditions compare the first two
// as numbers ("state.n == 2") and a json.Number only as text
// (string(state.id) == "123456789012345678901234567890").
func (r *runner) stateValue(v any) any {
	return refs.Exact(v)
}

// inputMap is the run's input for edge conditions, its numbers held as
// State's are.
func (r *runner) inputMap() map[string]any {
	if len(r.run.Input.Input) == 0 {
		return map[string]any{}
	}
	m := refs.State{}
	// The input was checked a JSON object when the run started (or an
	// edit changed it): empty is what conditions read of anything else.
	_ = json.Unmarshal(r.run.Input.Input, &m)
	if m == nil {
		return map[string]any{}
	}
	return m
}
