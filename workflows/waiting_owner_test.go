package workflows

import (
	"go/ast"
	"testing"

	"github.com/stretchr/testify/require"
)

// carriedWaits names the field an expression reaches what a waiting run
// carries through (its Resume's Waiting), or "": a conversation's
// Turn.Waiting is package chat's, checked by its own test.
func carriedWaits(e ast.Expr) string {
	if reachedThrough(e, map[string]bool{"Turn": true}) != "" {
		return ""
	}
	return reachedThrough(e, map[string]bool{"Waiting": true})
}

// What a run carries while it waits is built by package waiting alone: no
// file of workflows/ but waiting.go, which hands the part what the run
// carried and carries what the part built, assigns to it or its fields,
// calls a method through it or takes its address.
func TestOnlyWaitingCarriesTheWaits(t *testing.T) {
	carried := stateOwner{owned: carriedWaits, writers: map[string]bool{"waiting.go": true}, wiring: "waiting.go"}
	require.Empty(t, carried.writes(t), "only package waiting builds what a waiting run carries")
}

// The check sees a write to the carried waits, and not to a
// conversation's wait.
func TestTheWaitsOwnerSeesAWrite(t *testing.T) {
	src := `package workflows
func f(r *runner) {
	r.run.Resume.Waiting.Human = "n7"
	r.run.Turn.Waiting = "n3"
}`
	require.Len(t, stateOwner{owned: carriedWaits}.writesIn(t, "x.go", src), 1)
}
