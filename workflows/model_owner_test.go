package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// modelCallFields are the run's fields package model owns: its State
// (the run's ModelChoice) and the conversation's ClearedBefore, which
// only a compaction moves.
var modelCallFields = map[string]bool{
	"ModelChoice": true, "ModelAt": true, "ModelSince": true, "ModelFallbacks": true,
	"ClearedBefore": true,
}

// The model the run asks and the results it cleared are changed by
// package model alone: no file of workflows/ assigns to those fields or
// calls a method through them (they are exported for the run's JSON and
// for reading).
func TestOnlyTheModelCallChangesItsState(t *testing.T) {
	found := writesOf(t, modelCallFields, nil, "ModelChoice")
	require.Empty(t, found, "only package model changes the model call's state")
}
