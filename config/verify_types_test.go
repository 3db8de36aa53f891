package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The load check types a verify by the tool's schemas: a number compared
// with a string where the schemas say so is refused; numbers compare with
// numbers, and what a schema leaves open stays open (TestVerifyMistakesAreRefusedAtLoad:
// a field an object does not declare is refused unless additionalProperties opens it).
func TestVerifyTypedBySchemas(t *testing.T) {
	counted := func(verify string) string {
		return withTool("  - name: count",
			"    http: {url: http://t/count}",
			"    parameters: {type: object, properties: {max: {type: integer}, price: {type: number}, room: {type: string}}}",
			"    result_schema: {type: object, properties: {free: {type: integer}, rate: {type: number}, note: {type: string}, rooms: {type: array, items: {type: object, properties: {n: {type: integer}}}}}}",
			"    verify: "+verify)
	}
	for _, ok := range []string{
		`"result.free > 0 && result.free <= args.max && result.rate == 99.5 && result.rate > args.price"`,
		`"result.free != nil && result.note contains 'x' && args.room == '12'"`,
		`"all(result.rooms, {.n > 0}) && len(result.rooms) == result.free"`,
		`{tool: other, args: {id: "†args.room"}, expect: "result.anything == 2 && args.max > 0"}`,
	} {
		_, err := parse(counted(ok))
		require.NoError(t, err, ok)
	}
	runProblems(t, []problemCase{
		{"an integer compared with a string", counted(`"result.free == '3'"`), 7, "tools[0].verify", "mismatched types int64 and string"},
		{"a string compared with a number", counted(`"args.room > 12"`), 7, "tools[0].verify", "mismatched types string and int"},
		{"an item's integer with a string", counted(`"all(result.rooms, {.n == 'x'})"`), 7, "tools[0].verify", "the tool's parameters and result_schema type them"},
		{"a read-back's args typed by the checked tool", counted(`{tool: other, expect: "args.max == 'x'"}`), 7, "tools[0].verify.expect", "mismatched types int64 and string"},
	})
}

// A read-back's expect reads result as the read tool's result_schema
// types it.
func TestReadBackExpectTypedByTheReadTool(t *testing.T) {
	_, err := parse(y(
		"model: {base_url: http://m/v1, name: m}",
		"tools:",
		"  - {name: book, http: {url: http://t/book}, effect: write, verify: {tool: get_booking, args: {id: \"†result.id\"}, expect: \"result.nights == '2'\"}}",
		"  - {name: get_booking, http: {url: http://t/get}, result_schema: {type: object, properties: {nights: {type: integer}}}}",
		"agents:",
		"  - {name: x, tools: [book]}"))
	require.ErrorContains(t, err, "mismatched types int64 and string")
}
