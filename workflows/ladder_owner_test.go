package workflows

import (
	"go/ast"
	"go/parser"
	"go/token"
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
	found := writesOf(t, loopEscapeFields, loopEscapeWriters, "LoopEscape")
	require.Empty(t, found, "only package ladder changes the loop escape")
}

// writesOf lists where the files of workflows/ (but writers) assign to,
// count, delete from or call a method through a field of fields; a method
// of the part's own state (a field named owner) is the part's.
func writesOf(t *testing.T, fields, writers map[string]bool, owner string) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var found []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || writers[name] {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		report := func(n ast.Node, what string) {
			found = append(found, fset.Position(n.Pos()).String()+": "+what)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					if field := ownedIn(fields, lhs); field != "" {
						report(n, "assigns "+field)
					}
				}
			case *ast.IncDecStmt:
				if field := ownedIn(fields, n.X); field != "" {
					report(n, "counts "+field)
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && !isField(sel.X, owner) {
					if field := ownedIn(fields, sel.X); field != "" {
						report(n, "calls "+sel.Sel.Name+" on "+field)
					}
				}
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "delete" && len(n.Args) > 0 {
					if field := ownedIn(fields, n.Args[0]); field != "" {
						report(n, "deletes from "+field)
					}
				}
			}
			return true
		})
	}
	return found
}

// isField says whether e selects the field name (run.LoopEscape).
func isField(e ast.Expr, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name
}

// ownedIn names the field of fields an expression reaches through
// (run.Struggle.Away, r.run.Blocked[i], run.LoopEscape), or "".
func ownedIn(fields map[string]bool, e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			if fields[x.Sel.Name] {
				return x.Sel.Name
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return ""
		}
	}
}
