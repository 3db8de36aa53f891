package workflows

import (
	"go/ast"
	"go/types"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// handoffFields are the run's fields package handoff owns: the agents the
// run has been with, and the handoff rules' bookkeeping.
var handoffFields = map[string]bool{"HandoffPath": true, "RulesSeen": true, "RulesSpent": true}

// The handoffs' carried state is changed by package handoff alone: no
// file of workflows/ assigns to it, counts it, calls a method through it
// or takes its address but handoff.go, which hands package handoff its
// address (the fields are exported for the run's JSON and for reading).
func TestOnlyTheHandoffsChangeTheirState(t *testing.T) {
	require.Empty(t, handoffOwner.writes(t), "only package handoff changes the handoffs' state")
}

// The check catches what it is for, and a handoff context's own path is
// not the run's.
func TestHandoffOwnerCheckFindsWrites(t *testing.T) {
	src := `package workflows
func f(run *Run, r *runner, hc HandoffContext) {
	run.HandoffPath = nil
	r.run.HandoffPath[0] = "orders"
	r.run.RulesSeen++
	run.Progress.RulesSpent = true
	_ = &r.run.RulesSeen
	hc.HandoffPath = []string{"fine: the context's"}
	_ = run.HandoffPath
}`
	found := handoffOwner.writesIn(t, "fake.go", src)
	require.Len(t, found, 5, "%v", found)
}

// handoffOwner is the handoffs' carried state as its owner test sees it.
var handoffOwner = stateOwner{owned: handoffField, wiring: "handoff.go"}

// handoffField names the handoffs' field of the run an expression reaches
// (run.HandoffPath, r.run.RulesSeen, run.Progress.RulesSpent), or "": a
// handoff context's own HandoffPath is not the run's.
func handoffField(e ast.Expr) string {
	field := reachedThrough(e, handoffFields)
	if text := types.ExprString(e); strings.HasPrefix(text, "run.") || strings.Contains(text, ".run.") {
		return field
	}
	return ""
}
