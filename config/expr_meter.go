package config

// ExprMeter counts the cost of one evaluation of a condition compiled
// with a cost bound (policies.ExprCost): the compiled condition calls it
// at each step of a loop and with each value an operation reads, and it
// answers an error once the evaluation is over its bound, which ends it.
type ExprMeter interface {
	// Step counts a step of a loop.
	Step() error
	// Charge counts v's size: bytes of a string, items of a list or map,
	// nested ones too.
	Charge(v any) error
	// Times counts the n copies of s that repeat(s, n) makes.
	Times(s, n any) error
	// Span counts the items of the range from..to.
	Span(from, to any) error
	// Within counts what `in` may compare with: a list's items, nested
	// ones too (a map is a look-up).
	Within(v any) error
}

// Metered is a condition's env (VerifyEnv, WhenEnv) with the meter of one
// evaluation.
type Metered interface {
	WithMeter(m ExprMeter) any
}

// WithMeter answers e with m as its meter.
func (e VerifyEnv) WithMeter(m ExprMeter) any { e.Meter = m; return e }

// WithMeter answers e with m as its meter.
func (e WhenEnv) WithMeter(m ExprMeter) any { e.Meter = m; return e }
