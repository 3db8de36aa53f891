package policies

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNextMove(t *testing.T) {
	cases := []struct {
		name   string
		v      StepView
		move   Move
		reason string
	}{
		{"a step", StepView{Step: 3, MaxSteps: 10}, MoveStep, ""},
		{"a graph step", StepView{Step: 0, MaxSteps: 1, Graph: true}, MoveStep, ""},
		{"continue-as-new first", StepView{ContinueAsNewSuggested: true, Step: 10, MaxSteps: 10}, MoveContinueAsNew, ""},
		{"continue-as-new in a graph", StepView{ContinueAsNewSuggested: true, Step: 1, MaxSteps: 10, Graph: true}, MoveContinueAsNew, ""},
		{"the ceiling, free-form", StepView{Step: 10, MaxSteps: 10}, MoveStop, "max_steps (10) reached without an output"},
		{"past the ceiling, free-form", StepView{Step: 12, MaxSteps: 10}, MoveStop, "max_steps (10) reached without an output"},
		{"the ceiling, graph", StepView{Step: 25, MaxSteps: 25, Graph: true}, MoveStop, "max_steps (25) reached without reaching an end node"},
		{"max_steps 0", StepView{}, MoveStop, "max_steps (0) reached without an output"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			move, reason := NextMove(tc.v)
			require.Equal(t, tc.move, move)
			require.Equal(t, tc.reason, reason)
		})
	}
}

func TestMoveJSON(t *testing.T) {
	cases := []struct {
		move Move
		json string
	}{
		{MoveStep, `"step"`},
		{MoveContinueAsNew, `"continue_as_new"`},
		{MoveStop, `"stop"`},
	}
	for _, tc := range cases {
		raw, err := json.Marshal(tc.move)
		require.NoError(t, err)
		require.Equal(t, tc.json, string(raw))
		var back Move
		require.NoError(t, json.Unmarshal(raw, &back))
		require.Equal(t, tc.move, back)
	}
}
