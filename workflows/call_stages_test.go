package workflows

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
)

// A tool marked local runs as a local activity; a tool that writes, or is
// marked local: false, as a normal one.
func TestToolsMarkedLocalRunLocal(t *testing.T) {
	spec := echoSpec()
	yes, no := true, false
	for i := range spec.Tools {
		switch spec.Tools[i].Name {
		case "a":
			spec.Tools[i].Local = &yes
		case "b":
			spec.Tools[i].Effect, spec.Tools[i].Local = config.EffectWrite, &yes
		case "c":
			spec.Tools[i].Local = &no
		}
	}
	replies := []activities.ModelReply{{ToolCalls: []activities.ToolCall{call("k1", "a", `{}`), call("k2", "b", `{}`), call("k3", "c", `{}`)}}}
	h := newHarness(t, spec, replies, echoTool)
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	local := map[string]bool{}
	for i, req := range h.toolReqs {
		local[req.Tool.Name] = h.toolLocal[i]
	}
	require.Equal(t, map[string]bool{"a": true, "b": false, "c": false}, local)
}

// A local call still failing past the bound goes on as a normal activity
// with the same request (so the same idempotency key), and succeeds there.
func TestALocalCallFailingPastItsBoundGoesOnAsAnActivity(t *testing.T) {
	spec := echoSpec()
	yes := true
	spec.Tools[0].Local = &yes // a
	h := newHarness(t, spec, []activities.ModelReply{{ToolCalls: []activities.ToolCall{call("k1", "a", `{"q": 1}`)}}}, echoTool)
	h.localFails = true
	res, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	n := len(h.toolLocal)
	require.Greater(t, n, 2, "retried locally within the bound first")
	require.False(t, h.toolLocal[n-1], "then a normal activity")
	for _, local := range h.toolLocal[:n-1] {
		require.True(t, local)
	}
	for _, req := range h.toolReqs {
		require.Equal(t, h.toolReqs[0].CallID, req.CallID, "one call id: one idempotency key")
	}
}

func TestWhichLocalFailuresGoOnRemote(t *testing.T) {
	nonRetryable := []string{"fatal", "invalid_args"}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"none", nil, false},
		{"a timeout", temporal.NewTimeoutError(0, nil), true},
		{"a retryable error", temporal.NewApplicationError("down", "transient"), true},
		{"a non-retryable class", temporal.NewApplicationError("bad", "invalid_args"), false},
		{"a non-retryable error", temporal.NewNonRetryableApplicationError("too big", "ResultTooLarge", nil), false},
		{"a cancellation", temporal.NewCanceledError(), false},
		{"anything else", errors.New("?"), false},
	}
	for _, c := range cases {
		require.Equal(t, c.want, goesOnRemote(c.err, nonRetryable), c.name)
	}
}
