package workflows

import (
	"go/ast"
	"testing"

	"github.com/stretchr/testify/require"
)

// ledgerFields are the fields of a trace node package ledger owns: what
// the trace records of a call's effects.
var ledgerFields = map[string]bool{"Executed": true, "Ran": true, "CallKey": true, "Answered": true, "ReusedFrom": true}

// ledgerOwner is the effect ledger as its owner test sees it: a write is
// an assignment to one of its fields of a node (n.Executed, run.Nodes[i].Ran).
var ledgerOwner = stateOwner{owned: func(e ast.Expr) string { return fieldIn(e, ledgerFields, false) }}

// What the trace records of a call's effects is written by package
// ledger alone: no file of workflows/ sets whether a call ran, with which
// key, ran to a result, reused a result or was answered for (the fields
// are exported for the run's JSON and for reading).
func TestOnlyTheLedgerRecordsEffects(t *testing.T) {
	require.Empty(t, ledgerOwner.writes(t), "only package ledger records a call's effects")
}

// The check catches what it is for: each of these writes is found, and
// reads and the run's other Answered (a frontier move, a life state) are
// not.
func TestLedgerOwnerCheckFindsWrites(t *testing.T) {
	src := `package workflows
func f(run *Run, r *runner, n *Node) {
	n.Executed = true
	run.Nodes[0].Ran, run.Nodes[0].CallKey = true, "n1"
	r.run.node("n2").Answered = true
	n.Args, n.ReusedFrom = nil, "n3"
	_ = n.Executed && n.Answered
	r.run.Answered("n4")
	_ = r.life.Answered()
}`
	found := ledgerOwner.writesIn(t, "fake.go", src)
	require.Len(t, found, 5, "%v", found)
}
