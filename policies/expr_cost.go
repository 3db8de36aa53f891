package policies

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/unstuck-dev/unstuck/config"
)

// ExprBudget bounds one evaluation of a condition compiled with a cost
// bound (config.CompileVerify, CompileWhen), in units: StepCost for each
// step of a loop, one for each byte of a string and each item of a list
// or map an operation reads. The workflow code that evaluates it must
// yield within a second (the SDK's deadlock detector fails the workflow
// task, which is retried for ever): the costliest conditions stop within
// a few hundredths of a second on a loaded machine (expr_cost_test.go),
// and a condition may loop a few times over a list of thousands.
const ExprBudget = 4_000_000

// StepCost is what a step of a loop costs: its body's evaluation, the
// operations charged on top (ExprBudget / StepCost steps at most).
const StepCost = 50

// ErrOverBudget: the evaluation went past ExprBudget.
var ErrOverBudget = fmt.Errorf("it went over its cost bound of %d units (%d for each step of a loop, one for each byte of a string and each item of a list or map an operation reads): a loop in a loop over a long list costs the list's length squared, toJSON or a string function in a loop the size of its argument at each step", ExprBudget, StepCost)

// ExprCost is the meter of one evaluation (config.ExprMeter): it counts
// what the evaluation costs, and answers ErrOverBudget past ExprBudget.
type ExprCost struct {
	spent int
}

var _ config.ExprMeter = (*ExprCost)(nil)

// Spent is what the evaluation cost so far.
func (c *ExprCost) Spent() int { return c.spent }

func (c *ExprCost) add(n int) error {
	c.spent += n
	if c.spent > ExprBudget {
		return ErrOverBudget
	}
	return nil
}

// Step counts a step of a loop.
func (c *ExprCost) Step() error { return c.add(StepCost) }

// Charge counts v's size; sizing stops where the budget is spent.
func (c *ExprCost) Charge(v any) error {
	return c.add(exprSize(v, ExprBudget-c.spent+1))
}

// Times counts repeat(s, n)'s bytes: s's length n times.
func (c *ExprCost) Times(s, n any) error {
	str, _ := s.(string)
	k := toInt(n)
	if k > 0 && len(str) > 0 && k > (ExprBudget-c.spent)/len(str) {
		return c.add(ExprBudget + 1)
	}
	return c.add(max(k, 0) * len(str))
}

// Span counts the items of the range from..to.
func (c *ExprCost) Span(from, to any) error {
	k := toInt(to) - toInt(from) + 1
	if k > ExprBudget {
		k = ExprBudget + 1
	}
	return c.add(max(k, 0))
}

// Within counts what `in` may compare with: a list's items, each of
// which it may compare whole (their size); a map is a look-up.
func (c *ExprCost) Within(v any) error {
	if k := reflect.ValueOf(v).Kind(); k == reflect.Slice || k == reflect.Array {
		return c.Charge(v)
	}
	return nil
}

// toInt is an integer operand as a number (0 when it is not one).
func toInt(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		return int(n)
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int(min(rv.Uint(), uint64(ExprBudget+1)))
	case reflect.Float32, reflect.Float64:
		return int(rv.Float())
	}
	return 0
}

// exprSize is v's size in units (bytes of strings, items of lists and
// maps with their keys, nested ones too; a number or a bool is free),
// counted until it reaches limit, so sizing a large value stays bounded.
// A map's entries come in random order: the answer is their sum, the same
// in any order, or, stopped early, at least limit (over the bound) in any
// order, so the evaluation's outcome is the same on replay.
func exprSize(v any, limit int) int {
	switch x := v.(type) {
	case nil, bool, int, int64, float64:
		return 0
	case string:
		return len(x)
	case json.Number:
		return len(x)
	case []any:
		n := len(x)
		for _, e := range x {
			if n >= limit {
				break
			}
			n += exprSize(e, limit-n)
		}
		return n
	case map[string]any:
		n := len(x)
		for k, e := range x {
			if n >= limit {
				break
			}
			n += len(k) + exprSize(e, limit-n-len(k))
		}
		return n
	}
	return reflectSize(reflect.ValueOf(v), limit)
}

// reflectSize is exprSize of the values of other types a condition may
// build or read (split's []string, a range's []int, groupBy's map, $env).
func reflectSize(rv reflect.Value, limit int) int {
	switch rv.Kind() {
	case reflect.String:
		return rv.Len()
	case reflect.Slice, reflect.Array:
		n := rv.Len()
		for i := 0; i < rv.Len() && n < limit; i++ {
			n += exprSize(rv.Index(i).Interface(), limit-n)
		}
		return n
	case reflect.Map:
		n := rv.Len()
		for it := rv.MapRange(); it.Next() && n < limit; {
			n += exprSize(it.Key().Interface(), limit-n) + exprSize(it.Value().Interface(), limit-n)
		}
		return n
	case reflect.Struct:
		// $env: its exported fields are what toJSON($env) writes.
		n := 0
		for i := 0; i < rv.NumField() && n < limit; i++ {
			if rv.Type().Field(i).IsExported() {
				n += exprSize(rv.Field(i).Interface(), limit-n)
			}
		}
		return n
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return 0
		}
		return reflectSize(rv.Elem(), limit)
	}
	return 0
}

// overBudget: err is the evaluation's end at its cost bound.
func overBudget(err error) bool { return errors.Is(err, ErrOverBudget) }
