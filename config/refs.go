package config

import (
	"regexp"
	"strings"
)

// RefPrefix starts a Variable Reference (U+2020 DAGGER), a string that
// names a value of the run (†state.x, †input.x) instead of being one.
const RefPrefix = "†"

// refSide is one alternative of a reference: state or input, then at
// least one path step.
var refSide = regexp.MustCompile(`^†(state|input)(\.[^.\s|]+)+$`)

// IsRef reports whether s is a well-formed Variable Reference:
// †state.<path> or †input.<path>, or alternatives joined by "||" (the
// first that exists is used).
func IsRef(s string) bool {
	for _, alt := range strings.Split(s, "||") {
		if !refSide.MatchString(strings.TrimSpace(alt)) {
			return false
		}
	}
	return true
}
