package main

import (
	"strings"

	"github.com/unstuck-dev/unstuck/internal/termtext"
)

// summaryWidth is how many characters of a node's args, output or error
// the table shows: enough to recognise it, short enough to keep one row
// per node on a terminal.
const summaryWidth = 60

// oneLine collapses whitespace (newlines, tabs) so a value cannot break a
// table row or a tabwriter column, and writes out the controls a terminal
// would act on (termtext.Visible): what it shows a model, a tool or a
// person may have written.
func oneLine(s string) string {
	return termtext.Visible(strings.Join(strings.Fields(s), " "))
}
