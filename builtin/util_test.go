package builtin

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestEchoAnswersItsArguments(t *testing.T) {
	out, err := call(t, "echo", Call{Args: json.RawMessage(`{"b":[1,2],"a":{"c":null}}`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"b":[1,2],"a":{"c":null}}`, out)
}

func TestNoopAnswersOK(t *testing.T) {
	out, err := call(t, "noop", Call{Args: json.RawMessage(`{"anything":1}`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"ok":true}`, out)
}

func TestSleepWaitsTheGivenTime(t *testing.T) {
	start := time.Now()
	out, err := call(t, "sleep", Call{Args: json.RawMessage(`{"ms":30}`)})
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond)
	require.JSONEq(t, `{"slept_ms":30}`, out)
}

// A cancelled activity (timeout, workflow cancel) ends the sleep at once
// with a transient error.
func TestSleepHonoursCancellation(t *testing.T) {
	fn, ok := Lookup("sleep")
	require.True(t, ok)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err := fn(ctx, Call{Args: json.RawMessage(`{"ms":60000}`)})
	require.Less(t, time.Since(start), 5*time.Second)
	requireClassed(t, err, "transient", "context canceled")

	ctx, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()
	_, err = fn(ctx, Call{Args: json.RawMessage(`{"ms":60000}`)})
	requireClassed(t, err, "transient", "deadline exceeded")
}

func TestSleepRefusesOutOfRangeDurations(t *testing.T) {
	for _, args := range []string{`{"ms":-1}`, `{"ms":60001}`} {
		_, err := call(t, "sleep", Call{Args: json.RawMessage(args)})
		requireClassed(t, err, "invalid_args", "sleep: ms must be between 0 and 60000")
	}
	_, err := call(t, "sleep", Call{Args: json.RawMessage(`{"ms":"long"}`)})
	requireClassed(t, err, "invalid_args", "sleep: arguments are not valid")
}
