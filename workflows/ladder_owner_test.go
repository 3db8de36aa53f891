package workflows

import (
	"go/ast"
	"path/filepath"
	"strings"
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
// those fields: an edit restores the loop escape from a node's
// checkpoint (a snapshot the edit keeps whole), and a run's list of loops
// starts empty rather than null in its JSON.
var loopEscapeWriters = map[string]bool{"edit_apply.go": true, "workflow.go": true}

// The loop escape's state is changed by package ladder alone: no other
// file of workflows/ assigns to its fields or calls a method through them
// (the fields are exported for the run's JSON only).
func TestOnlyTheLadderChangesTheLoopEscape(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var found []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || loopEscapeWriters[name] {
			continue
		}
		found = append(found, ownedWrites(t, name, nil, ownedIn, loopEscapeCall)...)
	}
	require.Empty(t, found, "only package ladder changes the loop escape")
}

// loopEscapeCall says what a call does to the loop escape: a method
// called through one of its fields (a method of its own State is package
// ladder's), or a delete from one.
func loopEscapeCall(n *ast.CallExpr) string {
	if sel, ok := n.Fun.(*ast.SelectorExpr); ok && !isLoopEscape(sel.X) {
		if field := ownedIn(sel.X); field != "" {
			return "calls " + sel.Sel.Name + " on " + field
		}
	}
	if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "delete" && len(n.Args) > 0 {
		if field := ownedIn(n.Args[0]); field != "" {
			return "deletes from " + field
		}
	}
	return ""
}

func isLoopEscape(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "LoopEscape"
}

// ownedIn names the loop escape field an expression reaches through
// (run.Struggle.Away, r.run.Blocked[i], run.LoopEscape), or "".
func ownedIn(e ast.Expr) string { return fieldIn(e, loopEscapeFields, true) }
