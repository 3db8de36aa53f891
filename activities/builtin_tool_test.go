package activities

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/builtin"
	"github.com/unstuck-dev/unstuck/config"
)

// Test-only built-ins: one failing with an unclassed error, one answering
// a result over the size limit.
func init() {
	builtin.Register("activities_test_plain_error", func(context.Context, builtin.Call) (any, error) {
		return nil, errors.New("backend hiccup")
	})
	builtin.Register("activities_test_huge", func(context.Context, builtin.Call) (any, error) {
		return strings.Repeat("x", MaxResultBytes), nil
	})
	builtin.Register("activities_test_key", func(_ context.Context, c builtin.Call) (any, error) {
		return map[string]string{"workflow_id": c.WorkflowID, "key": c.IdempotencyKey}, nil
	})
}

func builtinTool(name, fn string) config.Tool {
	return config.Tool{Name: name, Builtin: fn}
}

func TestBuiltinToolEchoAnswersItsArguments(t *testing.T) {
	out, err := runTool(t, toolCase{CallID: "n1", Tool: builtinTool("echo", "echo"), Args: json.RawMessage(`{"b":[1,2],"a":"x"}`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"b":[1,2],"a":"x"}`, string(out))
}

// A built-in gets the run's workflow id and the same idempotency key an
// HTTP tool would.
func TestBuiltinToolGetsTheWorkflowIDAndIdempotencyKey(t *testing.T) {
	tool := builtinTool("k", "activities_test_key")
	args := json.RawMessage(`{"a":1}`)
	out, err := runTool(t, toolCase{CallID: "n9", Tool: tool, Args: args})
	require.NoError(t, err)
	key, err := IdempotencyKey(testWorkflowID, "n9", tool, args)
	require.NoError(t, err)
	require.JSONEq(t, `{"workflow_id":"`+testWorkflowID+`","key":"`+key+`"}`, string(out))
}

// A builtin.Error keeps its class; an unclassed error is transient.
func TestBuiltinToolErrorClasses(t *testing.T) {
	cases := []struct {
		name      string
		tool      config.Tool
		args      string
		class     string
		retryable bool
		message   string
	}{
		{"invalid_args from search_flights", builtinTool("search", "search_flights"), `{"from":"NYC","to":"LAX","date":"15/01/2024"}`,
			"invalid_args", false, "tool search: invalid date format for 'date'"},
		{"invalid_args from book_flight", builtinTool("book", "book_flight"), `{"flight_id":"UA1","passengers":12}`,
			"invalid_args", false, "tool book: value for 'passengers' must be >= 1 and <= 9"},
		{"unclassed error is transient", builtinTool("flaky", "activities_test_plain_error"), `{}`,
			"transient", true, "tool flaky: backend hiccup"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runTool(t, toolCase{CallID: "n1", Tool: tc.tool, Args: json.RawMessage(tc.args)})
			ae := requireClass(t, err, tc.class, tc.retryable)
			require.Contains(t, ae.Error(), tc.message)
		})
	}
}

// A tool's errors: rules win over the class a built-in gave (matched on
// the message; built-ins have no status).
func TestBuiltinToolErrorRulesOverrideItsClass(t *testing.T) {
	tool := builtinTool("search", "search_flights")
	tool.Errors = []config.ErrorRule{
		{Status: 400, Class: "fatal"}, // never matches a built-in
		{Message: "(?i)invalid date", Class: "persistent"},
	}
	_, err := runTool(t, toolCase{CallID: "n1", Tool: tool, Args: json.RawMessage(`{"from":"NYC","to":"LAX","date":"soon"}`)})
	requireClass(t, err, "persistent", false)

	flaky := builtinTool("flaky", "activities_test_plain_error")
	flaky.Errors = []config.ErrorRule{{Message: "hiccup", Class: "fatal"}}
	_, err = runTool(t, toolCase{CallID: "n1", Tool: flaky, Args: json.RawMessage(`{}`)})
	requireClass(t, err, "fatal", false)
}

// A built-in this worker does not have is fatal: no retry brings it.
func TestUnknownBuiltinIsFatal(t *testing.T) {
	_, err := runTool(t, toolCase{CallID: "n1", Tool: builtinTool("ghost", "no_such_builtin"), Args: json.RawMessage(`{}`)})
	ae := requireClass(t, err, "fatal", false)
	require.Contains(t, ae.Error(), `built-in "no_such_builtin" is not in this worker`)
	require.Contains(t, ae.Error(), "echo")
}

func TestToolWithNeitherHTTPNorBuiltinIsFatal(t *testing.T) {
	_, err := runTool(t, toolCase{CallID: "n1", Tool: config.Tool{Name: "nothing"}, Args: json.RawMessage(`{}`)})
	ae := requireClass(t, err, "fatal", false)
	require.Contains(t, ae.Error(), "tool nothing has neither http, builtin nor mcp")
}

// The size limit holds for built-ins too.
func TestBuiltinToolResultSizeLimit(t *testing.T) {
	_, err := runTool(t, toolCase{CallID: "n1", Tool: builtinTool("big", "activities_test_huge"), Args: json.RawMessage(`{}`)})
	requireClass(t, err, ResultTooLargeError, false)
}
