package workflows

import (
	"fmt"
	"go/ast"
	"testing"

	"github.com/stretchr/testify/require"
)

// traceFields are the run's fields package trace owns: its nodes, their
// ids and settle order, the frontier, and where its archived part is.
var traceFields = map[string]bool{"Nodes": true, "NextID": true, "Frontier": true, "Settles": true, "Archived": true}

// changesSlice are the calls that change the slice given first.
var changesSlice = map[string]bool{
	"append": true, "copy": true, "clear": true, "Delete": true, "DeleteFunc": true, "Insert": true, "Replace": true,
	"Reverse": true, "Sort": true, "SortFunc": true, "SortStableFunc": true, "Compact": true, "CompactFunc": true,
}

// The trace's nodes and frontier are changed by package trace alone: no
// other file of workflows/ assigns the frontier, adds, replaces or drops
// nodes, counts their ids or settles, or sets the archive (the fields are exported for the
// run's JSON only). Changing a field of a node is not caught here.
func TestOnlyTheTraceMovesTheFrontierAndAddsNodes(t *testing.T) {
	require.Empty(t, traceOwner.writes(t), "only package trace moves the frontier and adds nodes")
}

// The check catches what it is for: each of these writes is found.
func TestTraceOwnerCheckFindsWrites(t *testing.T) {
	src := `package workflows
func f(run *Run, r *runner, n Node) {
	run.Frontier = []string{"n1"}
	r.run.Frontier[0] = "n2"
	run.Nodes = append(run.Nodes, n)
	run.Nodes[0] = n
	run.NextID++
	run.Settles += 1
	_ = append(r.run.Nodes, n)
	slices.Delete(run.Nodes, 0, 1)
	run.Nodes[0].Error = "fine: a node's field"
	_ = run.Frontier
}`
	found := traceWrites(t, "fake.go", src)
	require.Len(t, found, 9, "%v", found) // one line both assigns and appends
}

// traceWrites lists the writes to the trace's fields in file name (or in
// src, when given).
func traceWrites(t *testing.T, name string, src any) []string {
	return traceOwner.writesIn(t, name, src)
}

// traceOwner is the trace as its owner test sees it: a method of a node
// or of the trace is the trace's to call; a call of append, copy or a
// slices function that changes a field is a write.
var traceOwner = stateOwner{
	owned:   traceField,
	mayCall: func(ast.Expr) bool { return true },
	changes: func(n *ast.CallExpr) string {
		var fn string
		switch f := n.Fun.(type) {
		case *ast.Ident:
			fn = f.Name
		case *ast.SelectorExpr:
			if pkg, ok := f.X.(*ast.Ident); ok && pkg.Name == "slices" {
				fn = f.Sel.Name
			}
		}
		if changesSlice[fn] && len(n.Args) > 0 {
			if field := traceField(n.Args[0]); field != "" {
				return fn + " to " + field
			}
		}
		return ""
	},
}

// traceField names the trace field an expression is (run.Frontier,
// r.run.Nodes[i]), or "": a field of a node (run.Nodes[i].Error) is not
// the trace's own field.
func traceField(e ast.Expr) string { return fieldIn(e, traceFields, false) }

// newNodeID gives a test's hand-built node the next id.
func (r *Run) newNodeID() string {
	r.NextID++
	return fmt.Sprintf("n%d", r.NextID)
}
