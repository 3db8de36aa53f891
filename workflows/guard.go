package workflows

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// The guard: every place workflow code runs (the main coroutine, the
// coroutines it starts, the update and query handlers, the start) runs
// under it. A panic in workflow code fails the workflow task, and Temporal
// retries it for ever (WorkflowPanicPolicy BlockWorkflow): the run is
// wedged, answering nothing. The guard turns the panic into a stop of the
// run whose report says where it panicked, the panic's value and a short
// stack. A query only answers an error: queries change nothing, and the
// SDK answers a query that panics with an error too.
//
// Runs recorded before the guard have no panic in their history (a panic
// failed the task, which is not recorded as a step), so the version is
// asked only once a panic is caught (versionPanicStop).

// runGuard is the guard's state in a generation: the first panic caught,
// and how to end the main coroutine, which alone can end the run.
type runGuard struct {
	caught     *caught
	cancelMain workflow.CancelFunc
}

// caught is a panic the guard took.
type caught struct {
	where string // the coroutine or handler, or "start"
	value any
	stack string
}

// reason is what the run's report says of the panic.
func (c *caught) reason() string {
	if u, ok := c.value.(unencodable); ok {
		return fmt.Sprintf("a value of the run (%s) could not be encoded as JSON: %v", u.what, u.err)
	}
	return fmt.Sprintf("%s panicked: %v (at %s)", c.where, c.value, c.stack)
}

// guardHook, set only by tests, runs as each guarded place begins, named
// as its report names it, so a test can make it panic.
var guardHook func(where string)

func hookGuard(where string) {
	if guardHook != nil {
		guardHook(where)
	}
}

// take records a panic the guard recovered, and answers it: the first
// one caught makes the report. A panic outside the main coroutine ends
// the main coroutine (its context is cancelled), which alone can end the
// run. A run recorded before the guard panics again, as it did; a value
// mustJSON could not encode in the main coroutine stopped the run before
// the guard, so it asks no version. take must not block: the
// panic is still unwinding.
func (g *runGuard) take(ctx workflow.Context, where string, p any, main bool) *caught {
	if sdkPanic(p) {
		panic(p)
	}
	if _, ok := p.(unencodable); !(ok && main) && versionOf(ctx, versionPanicStop, 1) < 1 {
		panic(p)
	}
	c := &caught{where: where, value: p, stack: shortStack()}
	workflow.GetLogger(ctx).Error("workflow code panicked: the run stops", "where", where, "panic", fmt.Sprint(p), "at", c.stack)
	if g.caught == nil {
		g.caught = c
	}
	if !main && g.cancelMain != nil {
		g.cancelMain()
	}
	return c
}

// guardMain gives the main coroutine a context the guard can end, and
// settles its outcome once it returns (and again once the handlers have
// finished): a panic caught anywhere stops the run with the report.
func (r *runner) guardMain(ctx workflow.Context) (workflow.Context, func(res **AgentResult, err *error)) {
	mctx, cancel := workflow.WithCancel(ctx)
	r.guard.cancelMain = cancel
	if r.guard.caught != nil { // an update panicked while the run started
		cancel()
	}
	stopped := false
	return mctx, func(res **AgentResult, err *error) {
		if c := r.guard.caught; c != nil && !stopped {
			stopped = true
			*res, *err = nil, r.stop(ctx, c.reason())
		}
	}
}

// recoverMain, deferred in the main coroutine, takes its panic.
func (g *runGuard) recoverMain(ctx workflow.Context) {
	if p := recover(); p != nil {
		g.take(ctx, "the run's main coroutine", p, true)
	}
}

// goGuarded is workflow.Go under the guard. settle, when not nil, ends
// what waits for the coroutine (a future it would have set) when it
// panicked, so the main coroutine does not wait for it for ever.
func (g *runGuard) goGuarded(ctx workflow.Context, where string, f func(workflow.Context), settle func()) {
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer g.recoverCoroutine(ctx, where, settle)
		hookGuard(where)
		f(ctx)
	})
}

func (g *runGuard) recoverCoroutine(ctx workflow.Context, where string, settle func()) {
	p := recover()
	if p == nil {
		return
	}
	g.take(ctx, where, p, false)
	if settle != nil {
		settle()
	}
}

// setGuardedUpdate installs an update under the guard: a panicking handler
// answers the update with an error and stops the run; a panicking
// validator rejects the update (a validator changes nothing).
func setGuardedUpdate[Q, A any](ctx workflow.Context, g *runGuard, name string, handle func(workflow.Context, Q) (A, error), valid func(workflow.Context, Q) error) error {
	where := "the " + name + " update"
	return workflow.SetUpdateHandlerWithOptions(ctx, name,
		func(ctx workflow.Context, req Q) (res A, err error) {
			defer g.recoverUpdate(ctx, where, &err)
			hookGuard(where)
			return handle(ctx, req)
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req Q) (err error) {
			defer recoverAnswer(where+"'s validator", &err)
			return valid(ctx, req)
		}})
}

func (g *runGuard) recoverUpdate(ctx workflow.Context, where string, err *error) {
	p := recover()
	if p == nil {
		return
	}
	*err = fmt.Errorf("%s; the run stops", g.take(ctx, where, p, false).reason())
}

// guardedQuery is a query handler under the guard: a panic answers the
// query with an error, and the run goes on as it was (a query changes
// nothing, and may ask no version). guardedQueryOf takes an argument.
func guardedQuery[A any](where string, answer func() (A, error)) func() (A, error) {
	return func() (res A, err error) {
		defer recoverAnswer(where, &err)
		hookGuard(where)
		return answer()
	}
}

func guardedQueryOf[Q, A any](where string, answer func(Q) (A, error)) func(Q) (A, error) {
	return func(q Q) (res A, err error) {
		defer recoverAnswer(where, &err)
		hookGuard(where)
		return answer(q)
	}
}

// recoverAnswer, deferred in a query handler or an update's validator,
// answers its panic as an error and leaves the run as it is.
func recoverAnswer(where string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s panicked: %v (at %s)", where, p, shortStack())
	}
}

// guardedStart is start under the guard: a panic while the run is built
// stops it with a report, as a run without a trace yet.
func guardedStart(ctx workflow.Context, in AgentInput) (r *runner, err error) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if sdkPanic(p) || versionOf(ctx, versionPanicStop, 1) < 1 {
			panic(p)
		}
		c := caught{where: "the run's start", value: p, stack: shortStack()}
		workflow.GetLogger(ctx).Error("workflow code panicked: the run stops", "where", c.where, "panic", fmt.Sprint(p), "at", c.stack)
		r, err = nil, stopUnstarted(in.Agent, c.reason())
	}()
	hookGuard("the run's start")
	return start(ctx, in)
}

// recoverRun, deferred in AgentWorkflow, takes a panic of the main
// coroutine outside the run of its shape (runAgent recovers its own, so
// the run closes as after any stop).
func (r *runner) recoverRun(ctx workflow.Context, agent string, res **AgentResult, err *error) {
	p := recover()
	if p == nil {
		return
	}
	c := r.guard.take(ctx, "the run's main coroutine", p, true)
	if r.run == nil {
		*res, *err = nil, stopUnstarted(agent, c.reason())
		return
	}
	*res, *err = nil, r.stop(ctx, c.reason())
}

// stopUnstarted is the stop of a run that has no trace yet: the report
// says why, with the agent it was started for.
func stopUnstarted(agent, reason string) error {
	report := &AgentResult{Status: ResultStopped, Output: json.RawMessage("null"), Agent: agent, Reason: reason}
	return temporal.NewNonRetryableApplicationError("agent stopped: "+reason, signals.StoppedErrorType, nil, report)
}

// sdkPanic says a panic is the SDK's own: the workflow code does not
// match its history (non-determinism, [TMPRL1100]) or misused the SDK.
// It stays a panic: the workflow task fails until a worker with code
// that matches takes it, as Temporal means it to; a stop would end a run
// that a fix could carry on.
func sdkPanic(p any) bool {
	if t := reflect.TypeOf(p); t != nil && strings.HasPrefix(t.PkgPath(), "go.temporal.io/sdk") {
		return true
	}
	s := fmt.Sprint(p)
	return strings.Contains(s, "[TMPRL1100]") || strings.Contains(s, "illegal access from outside of workflow context")
}

// shortStack is where a panic happened: the innermost frames of the
// run's code, file and line, without the runtime's, the SDK's and the
// guard's own.
func shortStack() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var at []string
	for len(at) < 5 {
		f, more := frames.Next()
		if ownFrame(f) {
			fn := f.Function[strings.LastIndex(f.Function, "/")+1:]
			at = append(at, fmt.Sprintf("%s %s:%d", fn, filepath.Base(f.File), f.Line))
		}
		if !more {
			break
		}
	}
	return strings.Join(at, " < ")
}

func ownFrame(f runtime.Frame) bool {
	for _, not := range []string{"runtime.", "reflect.", "go.temporal.io/"} {
		if strings.HasPrefix(f.Function, not) {
			return false
		}
	}
	return filepath.Base(f.File) != "guard.go"
}
