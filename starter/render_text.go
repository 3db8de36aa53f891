package main

import (
	"strings"
	"unicode/utf8"
)

// summaryWidth is how many characters of a node's args, output or error
// the table shows: enough to recognise it, short enough to keep one row
// per node on a terminal.
const summaryWidth = 60

// oneLine collapses whitespace (newlines, tabs) so a value cannot break a
// table row or a tabwriter column.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// truncate shortens s to at most n characters, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
