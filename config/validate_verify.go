package config

import (
	"reflect"
	"strconv"

	"github.com/expr-lang/expr/types"

	"github.com/unstuck-dev/unstuck/refs"
)

// checks checks what a tool's calls are checked with: its result_schema
// and its verify (an expression, or a read-back by a read tool of the
// file with arguments naming the call's †args and †result).
func (c *checker) checks(p path, t Tool, ts []Tool, names map[string]int) {
	if t.ResultSchema != nil {
		c.schema(p.key("result_schema"), "tool "+strconv.Quote(t.Name)+" result_schema", t.ResultSchema)
	}
	v := t.Verify
	if v == nil {
		return
	}
	vp := p.key("verify")
	if !v.ReadBack() {
		if v.Expr == "" {
			c.add(vp, "empty: an expression over args and result, e.g. \"result.status == 'booked'\", or a read-back {tool, args, expect}")
			return
		}
		c.verifyCondition(vp, v.Expr, typedVerifyEnv(t.Parameters, t.ResultSchema))
		return
	}
	var readResult map[string]any
	switch j, ok := names[v.Tool]; {
	case v.Tool == t.Name:
		c.add(vp.key("tool"), "a tool cannot read back its own calls: name a read tool that reports what %s did", t.Name)
	case !ok:
		c.add(vp.key("tool"), "unknown tool %q (known: %s)", v.Tool, known(names))
	case ts[j].Effect != EffectRead:
		c.add(vp.key("tool"), "the read-back %s has effect %s: a read-back must only read (effect: read), so checking a call never acts", v.Tool, ts[j].Effect)
	default:
		readResult = ts[j].ResultSchema
	}
	for _, f := range refs.FindCheck(v.Args) {
		if f.Err != nil {
			c.add(vp.key("args"), "%s: %v", f.At, f.Err)
		}
	}
	if v.Expect == "" {
		c.add(vp.key("expect"), "missing: the expression the read-back's result must meet, e.g. \"result.state == 'confirmed'\"")
		return
	}
	c.verifyCondition(vp.key("expect"), v.Expect, typedVerifyEnv(t.Parameters, readResult))
}

// verifyCondition refuses an expression that does not compile against
// args and result as a bool, or against them as the schemas type them
// (typed: a comparison of a number with a string, say).
func (c *checker) verifyCondition(p path, condition string, typed types.Map) {
	if _, err := CompileVerify(condition); err != nil {
		c.add(p, "%v", err)
		return
	}
	prog, err := compile(condition, typed, sized)
	if err != nil {
		c.add(p, "with args and result as the tool's parameters and result_schema type them: %v", err)
		return
	}
	if t := prog.Node().Type(); t == nil || t.Kind() != reflect.Bool {
		c.add(p, "%q is not a condition: it is a value the schemas do not type as a boolean; compare it (result.status == 'booked') or test it (result.ok == true)", condition)
	}
}
