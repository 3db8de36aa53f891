package config

import (
	"slices"

	"github.com/expr-lang/expr/vm"
	"go.yaml.in/yaml/v3"
)

// Verify is a tool's postcondition, checked after each call that
// succeeded: an expression over the call's args and result
// (verify: "result.status == 'booked'"), or a read-back: another tool,
// read-only, called with arguments naming the call's (†args.x,
// †result.x), whose result Expect checks (verify: {tool, args, expect}).
// A call that fails its check is settled failed with class unverified.
type Verify struct {
	Expr   string         `json:"expr,omitempty"`
	Tool   string         `json:"tool,omitempty"`
	Args   map[string]any `json:"args,omitempty"`
	Expect string         `json:"expect,omitempty"`
}

// ReadBack reports whether the check is a read-back call.
func (v *Verify) ReadBack() bool { return v != nil && v.Tool != "" }

// Condition is the expression the check evaluates: Expr, or a read-back's
// Expect.
func (v *Verify) Condition() string {
	if v.ReadBack() {
		return v.Expect
	}
	return v.Expr
}

// readBackKeys are the keys of verify's mapping form.
var readBackKeys = []string{"tool", "args", "expect"}

// UnmarshalYAML reads a string (the expression) or a mapping (a
// read-back). A problem is a *yaml.TypeError, so the decoder goes on and
// every problem of the file is reported together.
func (v *Verify) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		v.Expr = n.Value
		return nil
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; !slices.Contains(readBackKeys, k) {
				return typeError(n.Content[i], "field %s not found in verify (a read-back has tool, args and expect)", k)
			}
		}
		var rb struct {
			Tool   string         `yaml:"tool"`
			Args   map[string]any `yaml:"args"`
			Expect string         `yaml:"expect"`
		}
		if err := n.Decode(&rb); err != nil {
			return err
		}
		v.Tool, v.Args, v.Expect = rb.Tool, rb.Args, rb.Expect
		return nil
	}
	return typeError(n, "invalid verify: want an expression (a string) or a read-back {tool, args, expect}")
}

// MarshalYAML writes the check back as it is read.
func (v Verify) MarshalYAML() (any, error) {
	if !v.ReadBack() {
		return v.Expr, nil
	}
	return map[string]any{"tool": v.Tool, "args": v.Args, "expect": v.Expect}, nil
}

// VerifyEnv is what a verify expression sees: the arguments the call ran
// with and its result (for a read-back, the read-back's result).
type VerifyEnv struct {
	Args   map[string]any `expr:"args"`
	Result any            `expr:"result"`
	// Meter counts the evaluation's cost (policies.RunCondition).
	Meter ExprMeter `expr:"unstuck·meter"`
}

// CompileVerify compiles a verify expression, type-checked against
// VerifyEnv and required to be a bool. It runs in workflow code, under the
// rules of an edge condition (CompileWhen): no now(), no map-order
// builtins, dates in UTC, a cost bound.
func CompileVerify(condition string) (*vm.Program, error) {
	return compileBounded(condition, VerifyEnv{})
}

// CompileVerifyUnbounded is CompileVerify without the cost bound, as runs
// compiled checks before it (workflows.versionExprNumbers).
func CompileVerifyUnbounded(condition string) (*vm.Program, error) {
	return compile(condition, VerifyEnv{})
}
