package policies

import (
	"fmt"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// RunCondition evaluates a compiled condition in env (VerifyEnv,
// WhenEnv) within ExprBudget, counted by a meter of its own (ExprCost):
// whether it holds (a value that is not a bool does not), or why it could
// not be evaluated (ErrOverBudget past its bound).
func RunCondition(prog *vm.Program, env any) (bool, error) {
	if e, ok := env.(config.Metered); ok {
		env = e.WithMeter(&ExprCost{})
	}
	// The VM's own count of the items of the lists it builds, a second
	// bound: the meter reaches its bound first.
	m := vm.VM{MemoryBudget: ExprBudget}
	v, err := m.Run(prog, env)
	if overBudget(err) {
		return false, ErrOverBudget
	}
	if err != nil {
		return false, err
	}
	held, _ := v.(bool)
	return held, nil
}

// ConditionCheck is the check a condition's evaluation gives (held, or
// err when it could not be evaluated): passed when it held, else the
// reason, which names the values the condition read from args and result
// (tree is its compiled tree).
func ConditionCheck(kind, what, condition string, tree ast.Node, args, result any, held bool, err error) signals.Check {
	ck := signals.Check{Kind: kind, Condition: condition}
	if err == nil && held {
		ck.Passed = true
		return ck
	}
	ck.Seen = SeenValues(tree, args, result)
	if err != nil {
		ck.Reason = fmt.Sprintf("%s %q could not be evaluated: %v", what, condition, err)
		return ck
	}
	ck.Reason = ConditionFailed(what, condition, ck.Seen)
	return ck
}
