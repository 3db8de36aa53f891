package config

import (
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// WhenEnv is what a graph edge's `when` expression sees: ok and error of
// the node just left, the run's state and input, and how often each node
// was visited. Run a compiled condition with policies.RunCondition(program, WhenEnv{...}).
type WhenEnv struct {
	OK     bool           `expr:"ok"`
	Error  string         `expr:"error"`
	State  map[string]any `expr:"state"`
	Input  map[string]any `expr:"input"`
	Visits map[string]int `expr:"visits"`
	// Meter counts the evaluation's cost (policies.RunCondition).
	Meter ExprMeter `expr:"unstuck·meter"`
}

// CompileWhen compiles an edge condition, type-checked against WhenEnv and
// required to be a bool, with a cost bound (bounded: run it with
// policies.RunCondition). It is evaluated in workflow code, which must be
// deterministic: now() is disabled and date() parses in UTC, whatever the
// worker's time zone.
func CompileWhen(when string) (*vm.Program, error) {
	return compileBounded(when, WhenEnv{})
}

// CompileWhenUnbounded is CompileWhen without the cost bound, as runs
// compiled edge conditions before it (workflows.versionExprNumbers).
func CompileWhenUnbounded(when string) (*vm.Program, error) {
	return compile(when, WhenEnv{})
}

// compile compiles a condition evaluated in workflow code against env.
func compile(condition string, env any, opts ...expr.Option) (*vm.Program, error) {
	all := append([]expr.Option{expr.Env(env)}, deterministic...)
	return expr.Compile(condition, append(all, opts...)...)
}

// compileBounded compiles a condition with its cost bound (bounded),
// refused when it names what the bound adds.
func compileBounded(condition string, env any) (*vm.Program, error) {
	if err := refuseReserved(condition); err != nil {
		return nil, err
	}
	return compile(condition, env, bounded...)
}

// deterministic are the options of an expression evaluated in workflow
// code: a bool, no now(), dates in UTC.
var deterministic = []expr.Option{
	expr.AsBool(),
	expr.DisableBuiltin("now"),
	// keys, values and toPairs answer a map in Go's random order, which
	// would let an edge go another way on replay.
	expr.DisableBuiltin("keys"),
	expr.DisableBuiltin("values"),
	expr.DisableBuiltin("toPairs"),
	expr.Timezone("UTC"),
}
