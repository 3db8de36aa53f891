package policies

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
)

func TestSeenValues(t *testing.T) {
	args := map[string]any{"date": "2026-12-01", "legs": []any{"LHR", "JFK"}}
	result := map[string]any{"status": "pending", "html": "<b>&</b>", "booking": map[string]any{"id": "b1", "seats": []any{"12A"}}}
	for _, tc := range []struct {
		condition string
		want      []string // path=value
	}{
		{"result.status == 'booked' && result.date == args.date", []string{`result.status="pending"`, `result.date=null`, `args.date="2026-12-01"`}},
		{"result.booking.id != '' && len(result.booking.seats) > 1", []string{`result.booking.id="b1"`, `result.booking.seats=["12A"]`}},
		{"args.legs[1] == 'JFK' && result != nil", []string{`args.legs[1]="JFK"`, `result={"booking":{"id":"b1","seats":["12A"]},"html":"<b>&</b>","status":"pending"}`}},
		{"result.status in ['booked', 'confirmed']", []string{`result.status="pending"`}},
		{"result.html == ''", []string{`result.html="<b>&</b>"`}},
		{"true", nil},
		{"result.note == '<b>'", []string{`result.note=null`}},
	} {
		t.Run(tc.condition, func(t *testing.T) {
			prog, err := config.CompileVerify(tc.condition)
			require.NoError(t, err)
			var got []string
			for _, s := range SeenValues(prog.Node(), args, result) {
				got = append(got, s.Path+"="+string(s.Value))
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestCheckReasons(t *testing.T) {
	seen := []Seen{{Path: "result.status", Value: []byte(`"pending"`)}, {Path: "args.date", Value: []byte(`"2026-12-01"`)}}
	require.Equal(t, `verify "result.status == 'booked'" is false: result.status = "pending", args.date = "2026-12-01"`,
		ConditionFailed("verify", "result.status == 'booked'", seen))
	require.Equal(t, `verify "false" is false`, ConditionFailed("verify", "false", nil))
	long := []Seen{{Path: "result", Value: []byte(`"` + strings.Repeat("é", 100) + `"`)}}
	reason := ConditionFailed("expect", "result == ''", long)
	require.True(t, strings.HasSuffix(reason, "…"), reason)
	require.Less(t, len(reason), 200)

	for _, tc := range []struct {
		result any
		want   string
	}{
		{map[string]any{}, "the tool answered an empty object {} where its result_schema wants content: missing property 'id'"},
		{[]any{}, "the tool answered an empty list [] where its result_schema wants content: missing property 'id'"},
		{nil, "the tool answered null where its result_schema wants content: missing property 'id'"},
		{" ", "the tool answered an empty string where its result_schema wants content: missing property 'id'"},
		{map[string]any{"x": 1}, "the result does not match the tool's result_schema: missing property 'id'"},
	} {
		require.Equal(t, tc.want, ResultSchemaFailed(tc.result, "missing property 'id'"))
	}
}

func TestReadBackAnswered(t *testing.T) {
	for class, answered := range map[Class]bool{
		Persistent: true, InvalidArgs: true, // not found, refused: an answer about the thing
		Transient: false, Timeout: false, Fatal: false, Unclassified: false, CircuitOpen: false,
		"CircuitOpen": false, "ResultTooLarge": false, // the worker's refusals
	} {
		require.Equal(t, answered, ReadBackAnswered(class), string(class))
	}
}
