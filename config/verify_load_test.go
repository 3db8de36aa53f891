package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Mistakes in a verify that used to pass the load check, each refused
// naming the field: a condition that is not visibly a boolean, and a
// field the tool's schemas do not have (a typo would leave every call
// unverified).
func TestVerifyMistakesAreRefusedAtLoad(t *testing.T) {
	booked := func(lines ...string) string {
		return withTool(append([]string{"  - name: book", "    http: {url: http://t/book}", "    effect: write",
			"    result_schema: {type: object, properties: {status: {type: string}, ok: {type: boolean}}}"}, lines...)...)
	}
	untyped := func(verify string) string {
		return withTool("  - name: book", "    http: {url: http://t/book}", "    verify: "+verify)
	}
	runProblems(t, []problemCase{
		{"a field as the condition", untyped(`"result.status"`), 5, "tools[0].verify", "not a condition"},
		{"a typed string as the condition", booked(`    verify: "result.status"`), 7, "tools[0].verify", "expected bool"},
		{"a misspelled field", booked(`    verify: "result.stauts == 'booked'"`), 7, "tools[0].verify", "stauts"},
		{"a misspelled argument", withTool("  - name: book", "    http: {url: http://t/book}",
			"    parameters: {type: object, properties: {date: {type: string}}}", `    verify: "args.dat != ''"`), 6, "tools[0].verify", "dat"},
	})
	for _, ok := range []string{
		booked(`    verify: "result.status == 'booked' && result.ok"`),
		untyped(`"result.status == 'booked'"`),
		untyped(`"result.ok == true"`),
		withTool("  - name: book", "    http: {url: http://t/book}",
			"    result_schema: {type: object, properties: {status: {type: string}}, additionalProperties: true}",
			`    verify: "result.status == 'booked' && (result.note ?? '') == ''"`),
	} {
		_, err := parse(ok)
		require.NoError(t, err, ok)
	}
}

// Every problem of a file is reported at once: an unknown field does not
// hide a bad value elsewhere.
func TestEveryProblemOfAFileAtOnce(t *testing.T) {
	_, err := parse(withTool("  - name: book", "    http: {url: http://t/book}", "    effect: wrte", `    verfy: "result.ok == true"`))
	requireProblem(t, err, 6, "tools[0].verfy", `unknown field "verfy"`)
	requireProblem(t, err, 5, "tools[0].effect", "wrte")
}
