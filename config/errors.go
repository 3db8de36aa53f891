package config

import (
	"errors"
	"fmt"
)

// Error is one problem found in a config file. Load and Parse answer every
// problem at once (errors.Join of *Error), so a user fixes the file in one
// pass instead of one error per worker start.
type Error struct {
	File   string // the file name given to Load or Parse; may be empty
	Path   string // where inside the file, e.g. agents[0].tools[1]; may be empty
	Line   int    // 1-based line in the file, 0 when unknown
	Reason string
}

// Error prints the problem as "file:line: path: reason", leaving out the
// parts that are unknown, so editors and terminals can jump to the line.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s = fmt.Sprintf("%s:%d", s, e.Line)
	}
	if e.Path != "" {
		if s != "" {
			s += ": "
		}
		s += e.Path
	}
	if s != "" {
		s += ": "
	}
	return s + e.Reason
}

// Problems lists the *Error values inside err (one error, or a join of
// them), in order, for callers that print or inspect them one by one.
func Problems(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if e, ok := err.(*Error); ok {
			out = append(out, e)
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var e *Error
		if errors.As(err, &e) {
			out = append(out, e)
		}
	}
	walk(err)
	return out
}
