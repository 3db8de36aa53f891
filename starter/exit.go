package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/unstuck-dev/unstuck/internal/termtext"
)

// Exit codes: scripts tell "you typed it wrong" and "the agent stopped
// itself" apart from every other failure.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitStopped = 3
)

// exitError carries the exit code of a failed command. A silent one has
// already told the user what happened on stdout.
type exitError struct {
	code   int
	err    error
	silent bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf reports a mistake in the command line (exit code 2); it is
// always returned before anything is sent to Temporal.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// execute runs the command line args and returns the process exit code.
// It is main without os.Exit, so tests drive the real command tree.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer, dial dialFunc) int {
	root := newRootCmd(&cli{dial: dial})
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	code := exitFailure
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.silent {
			return code
		}
	}
	fmt.Fprintf(stderr, "unstuck: %s\n", termtext.Visible(err.Error())) // errors quote runs, tools and models
	if code == exitUsage && cmd != nil {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}
