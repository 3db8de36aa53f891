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

// stateOwner is a part's state in the run, as the tests that keep it the
// part's package's see it (ladder_owner_test.go, chat_owner_test.go).
type stateOwner struct {
	// owned names the part's field an expression reaches through, or "".
	owned func(ast.Expr) string
	// writers are the files of workflows/ that may still write it.
	writers map[string]bool
	// mayCall says whether a method may be called on recv, a part of the
	// state (the part's own methods of the state, say).
	mayCall func(recv ast.Expr) bool
	// wiring is the file that hands the part its state's address; taking
	// it anywhere else is a write ("": not checked).
	wiring string
	// changes says what a call changes of the state, if it does (append
	// to a field, say): "" when it does not (nil: no such call).
	changes func(*ast.CallExpr) string
}

// writes lists where a file of workflows/ other than the writers changes
// the part's state: assigns to it, counts in it, calls a method through
// it, deletes from or clears it, or takes its address.
func (o stateOwner) writes(t *testing.T) []string {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var found []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || o.writers[name] {
			continue
		}
		found = append(found, o.writesIn(t, name, nil)...)
	}
	return found
}

// writesIn lists the writes of file name (or of src, when given).
func (o stateOwner) writesIn(t *testing.T, name string, src any) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	require.NoError(t, err)
	var found []string
	report := func(n ast.Node, what string) {
		found = append(found, fset.Position(n.Pos()).String()+": "+what)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				if field := o.owned(lhs); field != "" {
					report(n, "assigns "+field)
				}
			}
		case *ast.IncDecStmt:
			if field := o.owned(n.X); field != "" {
				report(n, "counts "+field)
			}
		case *ast.UnaryExpr:
			if field := o.owned(n.X); n.Op == token.AND && field != "" && o.wiring != "" && name != o.wiring {
				report(n, "takes the address of "+field)
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && (o.mayCall == nil || !o.mayCall(sel.X)) {
				if field := o.owned(sel.X); field != "" {
					report(n, "calls "+sel.Sel.Name+" on "+field)
				}
			}
			if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(n.Args) > 0 {
				if field := o.owned(n.Args[0]); field != "" {
					report(n, id.Name+" on "+field)
				}
			}
			if o.changes != nil {
				if what := o.changes(n); what != "" {
					report(n, what)
				}
			}
		}
		return true
	})
	return found
}

// reachedThrough names the field of fields an expression reaches through
// (run.Struggle.Away, r.run.Blocked[i], run.Turn.Inbox[1:]), or "".
func reachedThrough(e ast.Expr, fields map[string]bool) string { return fieldIn(e, fields, true) }

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
		case *ast.SliceExpr:
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
