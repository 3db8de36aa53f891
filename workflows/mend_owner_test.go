package workflows

import (
	"go/ast"
	"testing"

	"github.com/stretchr/testify/require"
)

// mendingOwner is the runner's repair attempts, as package mend owns
// them: only mend_host.go hands the part their address.
var mendingOwner = stateOwner{
	owned:  func(e ast.Expr) string { return reachedThrough(e, map[string]bool{"mending": true}) },
	wiring: "mend_host.go",
}

// A call's repair attempts and the arguments it was tried with are
// package mend's: no file of workflows/ resets them or takes their
// address but the wiring, so a call never gets more attempts than the
// agent allows.
func TestOnlyMendChangesTheRepairAttempts(t *testing.T) {
	require.Empty(t, mendingOwner.writes(t), "only package mend changes the repair attempts")
	reset := "package workflows\nfunc (r *runner) fresh() { r.mending = mend.Attempts{}; _ = &r.mending }\n"
	require.Len(t, mendingOwner.writesIn(t, "reset.go", reset), 2, "a reset and an address taken are found")
}
