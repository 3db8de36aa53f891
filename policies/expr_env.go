package policies

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/config"
	refpkg "github.com/unstuck-dev/unstuck/refs"
)

// ExprValue is a JSON value as a condition (verify, expect, when) reads
// it: decoded with its numbers exact (refs.Exact, as the run's State
// holds them), so result.total > 0 and result.total == 2 compare numbers;
// expr-lang compares a json.Number only as text, and not with a number at
// all. JSON that does not decode reads as nil.
func ExprValue(raw json.RawMessage) any {
	v, err := DecodeJSON(raw)
	if err != nil {
		return nil
	}
	return refpkg.Exact(v)
}

// VerifyEnv is what a check's condition reads: the checked call's args
// (nil when they are not an object) and a result (the call's, or for a
// read-back's expect the read-back's), numbers exact (ExprValue).
func VerifyEnv(args, result json.RawMessage) config.VerifyEnv {
	a, _ := ExprValue(args).(map[string]any)
	return config.VerifyEnv{Args: a, Result: ExprValue(result)}
}
