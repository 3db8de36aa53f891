package workflows

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// panicAt makes the guarded place named where panic ("boom") for the rest
// of the test.
func panicAt(t *testing.T, where string) {
	guardHook = func(at string) {
		if at == where {
			panic("boom")
		}
	}
	t.Cleanup(func() { guardHook = nil })
}

// A tool call, then an answer: a run with a call of the step (of
// approvalSpec's b, held for approval, in the test of a stage's panic).
func callingReplies() []activities.ModelReply {
	return []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("c1", "search_flights", `{"from":"NYC"}`), call("c2", "b", `{"amount":10}`)}},
		{Content: "done"},
	}
}

// A panic anywhere in the run's own code (its main coroutine, a coroutine
// it started, its start) stops the run with a report naming where, the
// panic and where in the code; a run of an earlier version panics on, as
// it did (its workflow task fails).
func TestAPanicStopsTheRunWithAReport(t *testing.T) {
	graph := approvalSpec()
	graph.Agent.Graph = oneNodeGraph("b", map[string]any{"amount": 10})
	for _, tc := range []struct {
		where string
		spec  *config.Resolved
	}{
		{"the run's start", testSpec()},
		{"the run's main coroutine", testSpec()},
		{"the signal receiver", testSpec()},
		{"the watch on waits", testSpec()},
		{"a stage of a call", approvalSpec()}, // the wait for an approval
		{"a stage of a call", graph},
	} {
		name := tc.where
		if tc.spec.Agent.Graph != nil {
			name += " (graph)"
		}
		t.Run(name, func(t *testing.T) {
			panicAt(t, tc.where)
			agent := tc.spec.Agent.Name
			h := newHarness(t, tc.spec, callingReplies(), okTool)
			_, err := h.run(AgentInput{Agent: agent, Task: "Book"})
			rep := stopReport(t, err)
			require.Equal(t, ResultStopped, rep.Status)
			require.Equal(t, agent, rep.Agent)
			require.Contains(t, rep.Reason, tc.where+" panicked: boom (at ")
			require.Contains(t, rep.Reason, "guard_test.go:", "the report says where the panic was raised")

			h = newHarness(t, tc.spec, callingReplies(), okTool)
			h.before(versionPanicStop)
			_, err = h.run(AgentInput{Agent: agent, Task: "Book"})
			var pe *temporal.PanicError
			require.True(t, errors.As(err, &pe), "a run of an earlier version panics: %v", err)
			require.Equal(t, "boom", pe.Error())
		})
	}
}

// A local call's coroutine that panics settles its call, so the step
// does not wait for it for ever: the run stops with the report.
func TestAPanickingLocalCallStopsTheRun(t *testing.T) {
	spec := testSpec()
	local := true
	for i := range spec.Tools {
		spec.Tools[i].Local = &local
	}
	panicAt(t, "the local call n3")
	h := newHarness(t, spec, callingReplies(), okTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: "Book"})
	rep := stopReport(t, err)
	require.Contains(t, rep.Reason, "the local call n3 panicked: boom")
}

// An update whose handler panics is answered with an error naming the
// panic, and the run stops with the same report.
func TestAPanickingUpdateAnswersAnErrorAndStopsTheRun(t *testing.T) {
	panicAt(t, "the edit update")
	h := newHarness(t, testSpec(), callingReplies(), okTool)
	h.modelTakes = time.Minute
	var got updateResult
	h.edit(30*time.Second, signals.EditRequest{NodeID: "n1", Output: json.RawMessage(`"Book a train"`)}, &got)
	_, err := h.run(AgentInput{Agent: "travel", Task: "Book"})
	require.NoError(t, got.rejected)
	require.ErrorContains(t, got.err, "the edit update panicked: boom")
	require.ErrorContains(t, got.err, "the run stops")
	rep := stopReport(t, err)
	require.Contains(t, rep.Reason, "the edit update panicked: boom (at ")
}

// A query whose handler panics answers an error naming the panic; the
// run goes on as if it had not been asked.
func TestAPanickingQueryAnswersAnErrorAndTheRunGoesOn(t *testing.T) {
	h := newHarness(t, testSpec(), callingReplies(), okTool)
	h.modelTakes = time.Minute
	var queryErr error
	h.env.RegisterDelayedCallback(func() {
		panicAt(t, "the status query")
		_, queryErr = h.env.QueryWorkflow(signals.QueryStatus)
		guardHook = nil
	}, 30*time.Second)
	res, err := h.run(AgentInput{Agent: "travel", Task: "Book"})
	require.NoError(t, err)
	require.Equal(t, ResultCompleted, res.Status)
	require.ErrorContains(t, queryErr, "the status query panicked: boom (at ")
	require.ErrorContains(t, queryErr, "guard_test.go:")
}

// The SDK's own panics (the code does not match the history) stay panics:
// the workflow task fails until a worker whose code matches takes it.
func TestTheSDKsOwnPanicsStayPanics(t *testing.T) {
	guardHook = func(at string) {
		if at == "the watch on waits" {
			panic("[TMPRL1100] Workflow code is too old to support version 2")
		}
	}
	t.Cleanup(func() { guardHook = nil })
	h := newHarness(t, testSpec(), callingReplies(), okTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: "Book"})
	var pe *temporal.PanicError
	require.True(t, errors.As(err, &pe), "want a panic, got %v", err)
	require.False(t, sdkPanic("boom"))
	require.False(t, sdkPanic(unencodable{}))
}
