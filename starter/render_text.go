package main

import "strings"

// summaryWidth is how many characters of a node's args, output or error
// the table shows: enough to recognise it, short enough to keep one row
// per node on a terminal.
const summaryWidth = 60

// oneLine collapses whitespace (newlines, tabs) so a value cannot break a
// table row or a tabwriter column.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
