package policies

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	"github.com/unstuck-dev/unstuck/signals"
)

// ExprBudget bounds one evaluation of a condition compiled with a cost
// bound (config.CompileVerify, CompileWhen): the steps of its loops and
// the items of the lists and maps it builds. The workflow code that
// evaluates it must yield within a second (the SDK's deadlock detector
// fails the workflow task, which is retried for ever): this many steps
// take a tenth of that on a loaded machine, and let a condition loop a
// few times over a list of thousands.
const ExprBudget = 100_000

// ErrOverBudget: the evaluation went past ExprBudget.
var ErrOverBudget = fmt.Errorf("it went over its cost bound of %d steps (each step of a loop, each item of a list it builds): a loop in a loop over a long list costs the list's length squared", ExprBudget)

// RunCondition evaluates a compiled condition in env (VerifyEnv,
// WhenEnv) within ExprBudget: whether it holds (a value that is not a
// bool does not), or why it could not be evaluated.
func RunCondition(prog *vm.Program, env any) (bool, error) {
	m := vm.VM{MemoryBudget: ExprBudget}
	v, err := m.Run(prog, env)
	if err != nil {
		if strings.Contains(err.Error(), "memory budget exceeded") {
			return false, ErrOverBudget
		}
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
