package workflows

import (
	"errors"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// conditions are a runner's compiled conditions (an edge's when, a
// check's verify and expect, a tool's approval when), each compiled once
// per generation.
type conditions map[exprKey]*vm.Program

// exprKey names a compiled condition: an edge's when, a check's or an
// approval's, its text, and whether it has the cost bound.
type exprKey struct {
	when, approval, unbounded bool
	text                      string
}

// outcome is one evaluation of a condition: whether it held, or why it
// did not compile or could not be evaluated.
type outcome struct {
	prog       *vm.Program
	held       bool
	compileErr error
	runErr     error
}

// evaluate evaluates a condition in env: bounded (config.CompileVerify,
// CompileWhen; policies.RunCondition), or as runs did before
// versionExprNumbers.
func (cs conditions) evaluate(k exprKey, env any) outcome {
	prog, ok := cs[k]
	if !ok {
		var err error
		switch {
		case k.approval:
			prog, err = config.CompileApprovalWhen(k.text)
		case k.when && k.unbounded:
			prog, err = config.CompileWhenUnbounded(k.text)
		case k.when:
			prog, err = config.CompileWhen(k.text)
		case k.unbounded:
			prog, err = config.CompileVerifyUnbounded(k.text)
		default:
			prog, err = config.CompileVerify(k.text)
		}
		if err != nil {
			return outcome{compileErr: err}
		}
		cs[k] = prog
	}
	if k.unbounded {
		v, err := expr.Run(prog, env)
		held, _ := v.(bool)
		return outcome{prog: prog, held: held, runErr: err}
	}
	held, err := policies.RunCondition(prog, env)
	return outcome{prog: prog, held: held, runErr: err}
}

// evaluateGated evaluates a condition as the run's version says: in env,
// with its cost bound (versionExprNumbers), or in before, unbounded, as
// runs did. The version is asked only when the two may differ: they
// answer differently, or the bounded one went over its bound or is too
// long to compile (the unbounded one's answer is then not known).
// A nil before is env.
func (cs conditions) evaluateGated(ctx workflow.Context, when bool, text string, env, before any) outcome {
	k := exprKey{when: when, text: text}
	now, was := cs.evaluate(k, env), outcome{}
	if before == nil {
		before, was = env, now
	} else {
		was = cs.evaluate(k, before)
	}
	if !unknownBefore(was) && sameOutcome(now, was) {
		return now
	}
	if versionOf(ctx, versionExprNumbers, 1) != workflow.DefaultVersion {
		return now
	}
	k.unbounded = true
	return cs.evaluate(k, before)
}

// unknownBefore: an evaluation with the cost bound that does not say
// what the unbounded one answers.
func unknownBefore(o outcome) bool {
	return o.compileErr != nil || errors.Is(o.runErr, policies.ErrOverBudget)
}

func sameOutcome(a, b outcome) bool {
	return a.held == b.held && errText(a.runErr) == errText(b.runErr)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
