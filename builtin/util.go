package builtin

import (
	"context"
	"encoding/json"
	"time"
)

func init() {
	Register("echo", echo)
	Register("noop", noop)
	RegisterSlow("sleep", sleep)
}

// echo answers its arguments: the simplest tool that shows data flowing.
func echo(_ context.Context, call Call) (any, error) {
	return json.RawMessage(call.Args), nil
}

// noop answers {"ok": true}; benchmarks use it to measure engine cost.
func noop(context.Context, Call) (any, error) {
	return map[string]bool{"ok": true}, nil
}

// sleep waits {"ms": n} milliseconds (at most a minute), then answers
// {"slept_ms": n}; tests use it for slow and parallel calls.
func sleep(ctx context.Context, call Call) (any, error) {
	var a struct {
		MS int `json:"ms"`
	}
	if err := decode("sleep", call.Args, &a); err != nil {
		return nil, err
	}
	if a.MS < 0 || a.MS > 60000 {
		return nil, Errorf("invalid_args", "sleep: ms must be between 0 and 60000, got %d", a.MS)
	}
	select {
	case <-time.After(time.Duration(a.MS) * time.Millisecond):
		return map[string]int{"slept_ms": a.MS}, nil
	case <-ctx.Done():
		return nil, Errorf("transient", "sleep: %v", ctx.Err())
	}
}
