package config

import (
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// maxExprNodes bounds the size of a condition (verify, expect, when):
// far more than a condition needs, so one is never a program.
const maxExprNodes = 1000

// bounded are the options of a condition whose evaluation has a cost
// bound: a size bound, and each step of a loop (all, any, filter, map...)
// counted against the run's memory budget (policies.RunCondition), which
// expr-lang charges only for the lists and maps an expression builds: a
// loop in a loop over a long result would otherwise run on, past the
// workflow task's deadline, and the run would be stuck retrying it.
var bounded = []expr.Option{expr.MaxNodes(maxExprNodes), expr.Patch(loopSteps{})}

// loopSteps makes each step of a loop build a list of one item, [body][0],
// which charges the budget one and answers body.
type loopSteps struct{}

func (loopSteps) Visit(n *ast.Node) {
	c, ok := (*n).(*ast.PredicateNode)
	if !ok || c.Node == nil {
		return
	}
	c.Node = &ast.MemberNode{Node: &ast.ArrayNode{Nodes: []ast.Node{c.Node}}, Property: &ast.IntegerNode{Value: 0}}
}
