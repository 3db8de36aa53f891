package config

import (
	"fmt"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// reserved are the names the cost bound's patch adds to a condition
// (expr_cost.go): a condition that names one, as a name or as $env's
// key, is refused, so only the patch calls the meter.
var reserved = map[string]bool{
	meterName: true, stepFn: true, chargeFn: true, withinFn: true, timesFn: true, spanFn: true,
	valueVar: true, leftVar: true, rightVar: true,
}

// refuseReserved refuses a condition, as its author wrote it, that names
// a reserved name. One that does not parse is left to the compiler,
// which says why.
func refuseReserved(condition string) error {
	tree, err := parser.Parse(condition)
	if err != nil {
		return nil
	}
	var v reservedNames
	ast.Walk(&tree.Node, &v)
	if v.name != "" {
		return fmt.Errorf("%q is a name reserved for the cost bound: a condition cannot use it", v.name)
	}
	return nil
}

type reservedNames struct{ name string }

func (v *reservedNames) Visit(n *ast.Node) {
	switch c := (*n).(type) {
	case *ast.IdentifierNode:
		if reserved[c.Value] {
			v.name = c.Value
		}
	case *ast.StringNode:
		if reserved[c.Value] {
			v.name = c.Value
		}
	}
}
