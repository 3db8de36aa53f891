package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/unstuck-dev/unstuck/internal/termtext"
)

// Exit codes: scripts tell "you typed it wrong" and "the agent stopped
// itself" apart from every other failure. An eval that could not run
// shares 2 with a usage error, so a CI job never reads it as the 1 of a
// regression.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitNotRun  = 2
	exitStopped = 3
)

// exitError carries the exit code of a failed command. A silent one has
// already told the user what happened on stdout.
type exitError struct {
	code   int
	err    error
	silent bool
	usage  bool // a mistake in the command line: the help hint follows
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf reports a mistake in the command line (exit code 2); it is
// always returned before anything is sent to Temporal.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...), usage: true}
}

// notRun reports that a command could not do its work at all (exit code
// 2), keeping a usage error's own.
func notRun(err error) error {
	var ee *exitError
	if errors.As(err, &ee) && ee.usage {
		return err
	}
	return &exitError{code: exitNotRun, err: err}
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
	code, usage := exitFailure, false
	var ee *exitError
	if errors.As(err, &ee) {
		code, usage = ee.code, ee.usage
		if ee.silent {
			return code
		}
	}
	fmt.Fprintf(stderr, "unstuck: %s\n", termtext.Visible(err.Error())) // errors quote runs, tools and models
	if usage && cmd != nil {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}
