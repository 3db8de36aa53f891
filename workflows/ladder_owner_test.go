package workflows

import (
	"go/ast"
	"testing"

	"github.com/stretchr/testify/require"
)

// loopEscapeFields are the run's fields package ladder owns: its State
// (the run's LoopEscape) and the lists of other parts it keeps.
var loopEscapeFields = map[string]bool{
	"LoopEscape": true, "Detector": true, "Breakers": true, "Ladder": true, "Loops": true,
	"LoopsDropped": true, "LastCycle": true, "LastCycleNodes": true, "Blocked": true,
	"Events": true, "VisitWindow": true, "Struggle": true,
	"Escalations": true, "EscalationsDropped": true, "DroppedRungs": true, "ExcludedEdges": true,
}

// loopEscapeWriters are the files of workflows/ that may still write
// those fields: a run's list of loops starts empty rather than null in
// its JSON. (An edit restores the loop escape whole from a node's
// checkpoint: package edit, outside workflows/.)
var loopEscapeWriters = map[string]bool{"workflow.go": true}

// The loop escape's state is changed by package ladder alone: no other
// file of workflows/ assigns to its fields or calls a method through them
// (the fields are exported for the run's JSON only).
func TestOnlyTheLadderChangesTheLoopEscape(t *testing.T) {
	escape := stateOwner{
		owned:   func(e ast.Expr) string { return reachedThrough(e, loopEscapeFields) },
		writers: loopEscapeWriters,
		// A method of the loop escape's own State is package ladder's.
		mayCall: isLoopEscape,
	}
	require.Empty(t, escape.writes(t), "only package ladder changes the loop escape")
}

func isLoopEscape(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "LoopEscape"
}
