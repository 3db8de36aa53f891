package eval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMatches(t *testing.T) {
	obj := func(s string) any { return json.RawMessage(s) }
	for _, tc := range []struct {
		name   string
		expect *Expect
		output any
		pass   bool
		why    string
	}{
		{"no expect takes any output", nil, obj(`{"a":1}`), true, ""},
		{"exact equal, YAML numbers against JSON", &Expect{Output: map[string]any{"n": 1, "s": "x"}, Match: MatchExact}, obj(`{"s":"x","n":1.0}`), true, ""},
		{"exact: an extra field fails", &Expect{Output: map[string]any{"n": 1}, Match: MatchExact}, obj(`{"n":1,"m":2}`), false, `output {"m":2,"n":1} is not the expected {"n":1}`},
		{"empty match is exact", &Expect{Output: "ok"}, obj(`"ok"`), true, ""},
		{"subset: extra fields are fine", &Expect{Output: map[string]any{"a": map[string]any{"b": 2}}, Match: MatchSubset}, obj(`{"a":{"b":2,"c":3},"d":4}`), true, ""},
		{"subset: a missing field is named", &Expect{Output: map[string]any{"a": map[string]any{"b": 2}}, Match: MatchSubset}, obj(`{"a":{"c":3}}`), false, `output.a.b differs from the expected {"a":{"b":2}}`},
		{"subset: arrays element by element", &Expect{Output: map[string]any{"l": []any{map[string]any{"x": 1}}}, Match: MatchSubset}, obj(`{"l":[{"x":1,"y":2}]}`), true, ""},
		{"subset: an array of another length fails", &Expect{Output: map[string]any{"l": []any{1}}, Match: MatchSubset}, obj(`{"l":[1,2]}`), false, `output.l differs from the expected {"l":[1]}`},
		{"judge: only a verdict passes", &Expect{Output: "anything", Match: MatchJudge, Judge: "grader"}, obj(`"anything"`), false, "expect.match judge: only a judge run's verdict passes the output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pass, why := Matches(tc.expect, tc.output)
			require.Equal(t, tc.pass, pass)
			require.Equal(t, tc.why, why)
		})
	}
}
