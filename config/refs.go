package config

import "github.com/unstuck-dev/unstuck/refs"

// RefPrefix starts a Variable Reference (U+2020 DAGGER), a string that
// names a value of the run (†state.x, †input.x) instead of being one.
const RefPrefix = refs.Prefix

// IsRef reports whether s is a well-formed Variable Reference:
// †state.<path> or †input.<path>, or alternatives joined by "||" (the
// first that exists is used). The engine's own parser decides, so config
// accepts exactly what runs.
func IsRef(s string) bool {
	_, ok, err := refs.Parse(s)
	return ok && err == nil
}

// isOutputPath reports whether s is a single †state.<path>.
func isOutputPath(s string) bool {
	_, err := refs.ParseOutputPath(s)
	return err == nil
}
