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

// A conversation's state (the run's Turn) is changed by package chat
// alone: no file of workflows/ assigns to it or its fields, counts them
// or calls a method through them (its fields are exported for the run's
// JSON only). chat.go hands package chat the state's address.
func TestOnlyChatChangesTheTurn(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var found []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
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
					if throughTurn(lhs) {
						report(n, "assigns the run's Turn")
					}
				}
			case *ast.IncDecStmt:
				if throughTurn(n.X) {
					report(n, "counts in the run's Turn")
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND && throughTurn(n.X) && name != "chat.go" {
					report(n, "takes the address of the run's Turn")
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && throughTurn(sel.X) {
					report(n, "calls "+sel.Sel.Name+" on the run's Turn")
				}
				if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(n.Args) > 0 && throughTurn(n.Args[0]) {
					report(n, id.Name+" on the run's Turn")
				}
			}
			return true
		})
	}
	require.Empty(t, found, "only package chat changes a conversation's state")
}

// throughTurn says whether an expression reaches the run's Turn
// (r.run.Turn, run.Turn.Inbox[0], ...).
func throughTurn(e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			if x.Sel.Name == "Turn" {
				return true
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return false
		}
	}
}
