package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// Call is what a built-in tool receives.
type Call struct {
	WorkflowID string
	// IdempotencyKey is stable across retries of one call, as for HTTP
	// tools, so a tool with side effects can deduplicate.
	IdempotencyKey string
	Args           json.RawMessage
}

// Func is a built-in tool: its result is marshalled to JSON.
type Func func(ctx context.Context, call Call) (any, error)

// Error is a built-in tool's failure with its class (transient,
// invalid_args, persistent, fatal), as an HTTP tool's status would give.
type Error struct {
	Class   string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf builds a classed error.
func Errorf(class, format string, args ...any) *Error {
	return &Error{Class: class, Message: fmt.Sprintf(format, args...)}
}

var registry = map[string]Func{}

// Register adds a built-in tool; registering a name twice panics, as it
// is a programming error found at start.
func Register(name string, fn Func) {
	if _, dup := registry[name]; dup {
		panic("builtin: tool registered twice: " + name)
	}
	registry[name] = fn
}

// slow are the built-ins that may run long (sleep): config does not run
// them as local activities unless told to, since a local call holds the
// run's workflow task (no message or query is taken until it ends).
var slow = map[string]bool{}

// RegisterSlow adds a built-in tool that may run long.
func RegisterSlow(name string, fn Func) {
	Register(name, fn)
	slow[name] = true
}

// Slow reports whether a built-in tool may run long (config.Options).
func Slow(name string) bool { return slow[name] }

// Lookup finds a built-in tool by name.
func Lookup(name string) (Func, bool) {
	fn, ok := registry[name]
	return fn, ok
}

// Known reports whether a built-in tool exists (for config validation).
func Known(name string) bool {
	_, ok := registry[name]
	return ok
}

// Names lists the built-in tools in sorted order.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// decode unmarshals a call's arguments, answering a classed invalid_args
// error naming the tool on failure.
func decode(tool string, args json.RawMessage, into any) error {
	if err := json.Unmarshal(args, into); err != nil {
		return Errorf("invalid_args", "%s: arguments are not valid: %v", tool, err)
	}
	return nil
}
