package repair

import (
	"encoding/json"
	"math/big"
)

// bound is a numeric limit of the schema (or of a tool's rejection).
type bound struct {
	op    boundOp
	value *big.Rat
}

type boundOp int

const (
	atLeast boundOp = iota // minimum
	atMost                 // maximum
	above                  // exclusiveMinimum
	below                  // exclusiveMaximum
)

func (o boundOp) String() string {
	return [...]string{">=", "<=", ">", "<"}[o]
}

// clamp moves a number that breaks a bound to the nearest value that
// keeps it: the bound itself, rounded inward for integers. An exclusive
// bound has a nearest value only among integers ("> 0" is 1), so for
// other numbers it is refused.
func clamp(v any, b bound, integer bool) (json.Number, string, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return "", "", false
	}
	r, ok := numberRat(n)
	if ok && holds(r, b) {
		return "", "", false
	}
	var t *big.Rat
	switch {
	case b.op == atLeast && integer:
		t = ceil(b.value)
	case b.op == atMost && integer:
		t = floor(b.value)
	case b.op == atLeast, b.op == atMost:
		t = b.value
	case b.op == above && integer:
		t = floor(b.value)
		t.Add(t, big.NewRat(1, 1))
	case b.op == below && integer:
		t = ceil(b.value)
		t.Sub(t, big.NewRat(1, 1))
	default:
		return "", "", false
	}
	out := ratNumber(t)
	return out, "clamped to the bound " + b.op.String() + " " + string(ratNumber(b.value)), true
}

// holds reports whether r keeps the bound.
func holds(r *big.Rat, b bound) bool {
	c := r.Cmp(b.value)
	switch b.op {
	case atLeast:
		return c >= 0
	case atMost:
		return c <= 0
	case above:
		return c > 0
	default:
		return c < 0
	}
}
