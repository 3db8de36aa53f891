package workflows

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/require"
)

// ownedWrites lists where file name (or src, when given) changes what a
// part owns: it assigns to or counts what owned names (a field's name, or
// ""), or makes a call that call says changes it (what it does, or "").
func ownedWrites(t *testing.T, name string, src any, owned func(ast.Expr) string, call func(*ast.CallExpr) string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	require.NoError(t, err)
	var found []string
	report := func(n ast.Node, what string) {
		found = append(found, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				if field := owned(lhs); field != "" {
					report(n, "assigns "+field)
				}
			}
		case *ast.IncDecStmt:
			if field := owned(n.X); field != "" {
				report(n, "counts "+field)
			}
		case *ast.CallExpr:
			if what := call(n); what != "" {
				report(n, what)
			}
		}
		return true
	})
	return found
}

// fieldIn names the field of fields that expression e is (run.Frontier,
// r.run.Nodes[i], *p.x) or, with through, reaches through
// (run.Struggle.Away): else "".
func fieldIn(e ast.Expr, fields map[string]bool, through bool) string {
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			if fields[x.Sel.Name] {
				return x.Sel.Name
			}
			if !through {
				return ""
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
