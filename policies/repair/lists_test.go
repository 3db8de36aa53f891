package repair

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// listSchema has arrays of plain strings, of enum values and of integers.
const listSchema = `{"type": "object", "properties": {
	"attendees": {"type": "array", "items": {"type": "string"}},
	"categories": {"type": "array", "items": {"type": "string", "enum": ["electronics", "books", "home"]}},
	"ids": {"type": "array", "items": {"type": "integer"}}},
	"additionalProperties": false}`

// The known wrong repair (issue 14): a string holding several
// comma-separated values for an array reached the tool as a one-item
// array with the whole string inside. It must be split, or go to the
// model, never wrapped whole.
func TestRepairListInAStringIsSplitNotWrapped(t *testing.T) {
	schema := schemaOf(t, listSchema)
	r := Repair(schema, obj(t, `{"attendees": "ana@example.com, bo@example.com"}`), Options{})
	require.True(t, r.Valid, r.Reason)
	require.Equal(t, `{"attendees":["ana@example.com","bo@example.com"]}`, canon(t, r.Args))
}
