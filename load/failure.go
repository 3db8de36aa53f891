package load

import (
	"errors"

	"go.temporal.io/sdk/temporal"
)

// failureKind names what ended a failed run, for the report's "failures by
// kind": the application error type a run failed with (AgentStopped,
// UnknownAgent, BadInput...), "timeout (...)" with the timeout's type,
// "activity failure: T" for an activity error the workflow passed on,
// canceled, terminated, or "start" when the server refused to start it.
func failureKind(err error) string {
	var (
		activity   *temporal.ActivityError
		app        *temporal.ApplicationError
		timeout    *temporal.TimeoutError
		canceled   *temporal.CanceledError
		terminated *temporal.TerminatedError
	)
	switch {
	case errors.As(err, new(*startError)):
		return "start"
	case errors.As(err, &activity):
		// An activity's own error is the interesting part: its type.
		cause := errors.Unwrap(activity)
		switch {
		case errors.As(cause, &app):
			return "activity failure: " + typeOr(app.Type())
		case errors.As(cause, &timeout):
			return "activity failure: timeout (" + timeout.TimeoutType().String() + ")"
		}
		return "activity failure"
	case errors.As(err, &timeout):
		return "timeout (" + timeout.TimeoutType().String() + ")"
	case errors.As(err, &terminated):
		return "terminated"
	case errors.As(err, &canceled):
		return "canceled"
	case errors.As(err, &app):
		return typeOr(app.Type())
	}
	return "other"
}

func typeOr(t string) string {
	if t == "" {
		return "application error"
	}
	return t
}

// startError is the server's refusal to start a run.
type startError struct{ err error }

func (e *startError) Error() string { return "start: " + e.err.Error() }
func (e *startError) Unwrap() error { return e.err }
