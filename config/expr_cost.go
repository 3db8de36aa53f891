package config

import (
	"errors"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// maxExprNodes bounds the size of a condition (verify, expect, when):
// far more than a condition needs, so one is never a program.
const maxExprNodes = 1000

// sized bounds a condition's size: with the types a file's schemas give
// args and result, a condition is checked as its author wrote it.
var sized = expr.MaxNodes(maxExprNodes)

// bounded are the options of a condition whose evaluation has a cost
// bound, counted by the env's meter (ExprMeter, policies.RunCondition):
// each step of a loop (all, any, filter, map...) and the size of what
// each operation reads (a builtin's arguments, an operator's operands),
// so a loop in a loop over a long result, or toJSON(result) in a loop,
// stops at the bound instead of running on past the workflow task's
// deadline, where the run would be stuck retrying it.
var bounded = []expr.Option{
	sized,
	expr.Function(stepFn, metering(func(m ExprMeter, _ []any) error { return m.Step() })),
	expr.Function(chargeFn, metering(func(m ExprMeter, p []any) error { return m.Charge(p[0]) })),
	expr.Function(withinFn, metering(func(m ExprMeter, p []any) error { return m.Within(p[0]) })),
	expr.Function(timesFn, metering(func(m ExprMeter, p []any) error { return m.Times(p[0], p[1]) })),
	expr.Function(spanFn, metering(func(m ExprMeter, p []any) error { return m.Span(p[0], p[1]) })),
	expr.Patch(metered{}),
}

// The names the patch adds: reserved, no condition may write them
// (reserved.go).
const (
	meterName = "unstuck·meter" // the env's meter (VerifyEnv.Meter)
	stepFn    = "unstuck·step"
	chargeFn  = "unstuck·charge"
	withinFn  = "unstuck·within"
	timesFn   = "unstuck·times"
	spanFn    = "unstuck·span"
	valueVar  = "unstuck·v" // the value charged
	leftVar   = "unstuck·a" // repeat's and a range's operands
	rightVar  = "unstuck·b"
)

// errNoMeter: a condition with a cost bound run in an env without its
// meter, which would not be bounded.
var errNoMeter = errors.New("a condition with a cost bound is evaluated with a meter (policies.RunCondition)")

// metering is a function the patch calls with the meter and values.
func metering(f func(ExprMeter, []any) error) func(...any) (any, error) {
	return func(p ...any) (any, error) {
		m, ok := p[0].(ExprMeter)
		if !ok {
			return nil, errNoMeter
		}
		return nil, f(m, p[1:])
	}
}

// free are the builtins whose cost does not grow with their arguments.
var free = map[string]bool{
	"len": true, "type": true, "first": true, "last": true, "get": true,
	"abs": true, "ceil": true, "floor": true, "round": true,
	"bitand": true, "bitor": true, "bitxor": true, "bitnand": true, "bitnot": true,
	"bitshl": true, "bitshr": true, "bitushr": true,
}

// unmetered are the operators whose cost does not grow with their
// operands (numbers' arithmetic; and, or and ?? evaluate one at a time).
var unmetered = map[string]bool{
	"&&": true, "||": true, "and": true, "or": true, "??": true,
	"-": true, "*": true, "/": true, "%": true, "**": true, "^": true,
}

// metered makes a condition count what it costs on its meter: a loop's
// step, each argument of a builtin and operand of an operator (charge),
// what repeat makes (times), a range's items (span), the list `in`
// searches (within). Each value keeps its type: a charged one is bound
// to a name, charged, and answered (let v = x; charge(m, v); v).
type metered struct{}

func (metered) Visit(n *ast.Node) {
	switch c := (*n).(type) {
	case *ast.PredicateNode:
		if c.Node != nil {
			c.Node = &ast.SequenceNode{Nodes: []ast.Node{meterCall(stepFn), c.Node}}
		}
	case *ast.BuiltinNode:
		if c.Name == "repeat" && len(c.Arguments) == 2 {
			*n = bothCharged(timesFn, c.Arguments[0], c.Arguments[1], func(a, b ast.Node) ast.Node {
				return &ast.BuiltinNode{Name: c.Name, Arguments: []ast.Node{a, b}}
			})
			return
		}
		for i, a := range c.Arguments {
			switch {
			case free[c.Name], isPredicate(a):
			case i == 0 && len(c.Arguments) > 1 && isPredicate(c.Arguments[1]):
				// A loop's list: its steps are counted.
			default:
				c.Arguments[i] = charged(chargeFn, a)
			}
		}
	case *ast.BinaryNode:
		switch {
		case unmetered[c.Operator]:
		case compares[c.Operator] && (literal(c.Left) || literal(c.Right)):
			// With a value written in the condition: a comparison is
			// bounded by that value's size, or is of other types.
		case c.Operator == "+" && (number(c.Left) || number(c.Right)):
			// A number added: a sum of numbers, or an error.
		case c.Operator == "..":
			*n = bothCharged(spanFn, c.Left, c.Right, func(a, b ast.Node) ast.Node {
				return &ast.BinaryNode{Operator: c.Operator, Left: a, Right: b}
			})
		case c.Operator == "in":
			c.Left, c.Right = charged(chargeFn, c.Left), charged(withinFn, c.Right)
		default:
			c.Left, c.Right = charged(chargeFn, c.Left), charged(chargeFn, c.Right)
		}
	}
}

// compares are the comparison operators.
var compares = map[string]bool{"==": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true}

// literal: x is a value written in the condition.
func literal(x ast.Node) bool {
	switch x.(type) {
	case *ast.StringNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NilNode, *ast.ConstantNode:
		return true
	}
	return false
}

// number: x is a number written in the condition.
func number(x ast.Node) bool {
	switch x.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		return true
	}
	return false
}

// charged is x counted by fn: let v = x; fn(m, v); v. A value written in
// the condition is left as it is (its size is bounded by the
// condition's): a constant pattern of matches is compiled once.
func charged(fn string, x ast.Node) ast.Node {
	if literal(x) {
		return x
	}
	v := &ast.IdentifierNode{Value: valueVar}
	return &ast.VariableDeclaratorNode{Name: valueVar, Value: x, Expr: &ast.SequenceNode{Nodes: []ast.Node{
		meterCall(fn, v), &ast.IdentifierNode{Value: valueVar},
	}}}
}

// bothCharged is op(x, y) with its operands counted by fn first: let a =
// x; let b = y; fn(m, a, b); op(a, b).
func bothCharged(fn string, x, y ast.Node, op func(a, b ast.Node) ast.Node) ast.Node {
	a, b := func() ast.Node { return &ast.IdentifierNode{Value: leftVar} }, func() ast.Node { return &ast.IdentifierNode{Value: rightVar} }
	return &ast.VariableDeclaratorNode{Name: leftVar, Value: x, Expr: &ast.VariableDeclaratorNode{Name: rightVar, Value: y, Expr: &ast.SequenceNode{Nodes: []ast.Node{
		meterCall(fn, a(), b()), op(a(), b()),
	}}}}
}

func isPredicate(n ast.Node) bool {
	_, ok := n.(*ast.PredicateNode)
	return ok
}

// meterCall is a call of the meter's fn with args.
func meterCall(fn string, args ...ast.Node) ast.Node {
	return &ast.CallNode{
		Callee:    &ast.IdentifierNode{Value: fn},
		Arguments: append([]ast.Node{&ast.IdentifierNode{Value: meterName}}, args...),
	}
}
