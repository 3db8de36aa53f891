package workflows

import (
	"go/ast"
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
	call := stateOwner{
		owned: func(e ast.Expr) string { return reachedThrough(e, modelCallFields) },
		// A method of the model call's own State is package model's.
		mayCall: func(recv ast.Expr) bool {
			sel, ok := recv.(*ast.SelectorExpr)
			return ok && sel.Sel.Name == "ModelChoice"
		},
	}
	require.Empty(t, call.writes(t), "only package model changes the model call's state")
}
