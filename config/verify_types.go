package config

import (
	"github.com/expr-lang/expr/types"
)

// schemaType is the type a JSON Schema promises a value has, for the
// load check of a verify condition: integer, number, string, boolean, an
// object's declared properties and an array's items. An object that
// declares its properties has those only, unless additionalProperties
// opens it: a verify that reads another is a typo far more often than a
// field the schema forgot, and a typo would leave every call unverified. What the schema leaves open (no type, several, null, $ref,
// combinators) is any, so the check refuses only what the schema rules
// out: result.total == "2" where total is an integer is always false.
// At run time integers are int64 and numbers float64 (refs.Exact), which
// compare with each other.
func schemaType(schema any) types.Type {
	s, ok := schema.(map[string]any)
	if !ok {
		return types.Any
	}
	switch s["type"] {
	case "integer":
		return types.Int64
	case "number":
		return types.Float64
	case "string":
		return types.String
	case "boolean":
		return types.Bool
	case "array":
		return types.Array(schemaType(s["items"]))
	case "object":
		props, declared := s["properties"].(map[string]any)
		m := types.Map{}
		if !declared || opensMore(s["additionalProperties"]) {
			m[types.Extra] = types.Any
		}
		for k, p := range props {
			m[k] = schemaType(p)
		}
		return m
	}
	return types.Any
}

// typedVerifyEnv is VerifyEnv as the schemas type it: args by the checked
// tool's parameters, result by result (a result_schema; nil for any).
func typedVerifyEnv(parameters, result map[string]any) types.Map {
	env := types.Map{"args": types.Any, "result": types.Any}
	if parameters != nil {
		env["args"] = schemaType(parameters)
	}
	if result != nil {
		env["result"] = schemaType(result)
	}
	return env
}

// opensMore says whether an object schema's additionalProperties lets
// properties it does not declare in (true, or a schema of them).
func opensMore(additional any) bool {
	switch a := additional.(type) {
	case bool:
		return a
	case map[string]any:
		return true
	}
	return false
}
