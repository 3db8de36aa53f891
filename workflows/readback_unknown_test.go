package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// A read-back that cannot read leaves a write's outcome unknown: it is
// held so (class outcome_unknown), never run again while it is, and the
// read tool's breaker counts the failure, not the write's.

// readsDown answers reserve with a booking and get_booking with a
// transient failure Temporal does not retry (its tries are spent).
func readsDown(req activities.ToolRequest) (json.RawMessage, error) {
	if req.Tool.Name == "get_booking" {
		return nil, temporal.NewNonRetryableApplicationError("bookings are down", string(policies.Transient), nil)
	}
	return json.RawMessage(`{"id":"b1"}`), nil
}

// reserveTwice: the model reserves, then reserves again.
func reserveTwice() []activities.ModelReply {
	return []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "reserve", `{"room":"12"}`)}},
		{ToolCalls: []activities.ToolCall{call("k2", "reserve", `{"room":"12"}`)}},
		{Content: "done"},
	}
}

// unknownSpec is checkSpec with breakers that open at two failures.
func unknownSpec() *config.Resolved {
	spec := checkSpec()
	spec.Agent.Policies.Breaker.Failures = 2
	return spec
}

func TestAReadBackThatCannotReadHoldsTheWriteUnknown(t *testing.T) {
	h := newHarness(t, unknownSpec(), reserveTwice(), readsDown)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, []string{"reserve", "get_booking", "get_booking"}, toolNamesOf(h.toolReqs), "the write once, a read-back each time it is asked for")

	tr := h.trace()
	first, second := callNode(t, tr, "n3"), callNode(t, tr, "n6")
	require.Equal(t, signals.StatusFailed, first.Status)
	require.Equal(t, "the outcome of the write is unknown: its read-back get_booking could not read (bookings are down), so whether it took effect is not known. It is not run again while its outcome is unknown: ask for the same call again to check again", first.Error)
	require.Equal(t, &signals.Check{Kind: signals.CheckReadBack, Condition: "result.state == 'confirmed'", Reason: first.Error, ReadBack: "n4", Unknown: true}, first.Check)
	require.JSONEq(t, `{"id":"b1"}`, string(first.Output), "what the tool answered stays")

	var env map[string]any
	require.NoError(t, json.Unmarshal([]byte(h.requests[1].Delta[0].Content), &env))
	require.Equal(t, "outcome_unknown", env["class"])
	require.Equal(t, first.Error, env["error"])
	require.Equal(t, map[string]any{"id": "b1"}, env["result"])

	require.Equal(t, signals.StatusFailed, second.Status)
	require.Empty(t, second.ReusedFrom)
	require.Contains(t, second.Error, "not run again: the outcome of n3 is still unknown: its read-back get_booking could not read (bookings are down)")
	require.True(t, second.Check.Unknown)

	st := h.status()
	require.Zero(t, st.Unverified)
	require.Equal(t, policies.BreakerOpen, st.Breakers["get_booking"], "the read tool counted both")
	require.Equal(t, policies.BreakerClosed, st.Breakers["reserve"], "the write tool served")
}

// A run recorded before read-back-unknown keeps its behaviour: the call
// is unverified, the write tool's breaker counts it, and asked for again
// the write runs once more.
func TestAReadBackThatCannotReadRecordedBeforeRunsTheWriteAgain(t *testing.T) {
	h := newHarness(t, unknownSpec(), reserveTwice(), readsDown)
	h.before(versionReadBackUnknown)
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, []string{"reserve", "get_booking", "get_booking", "reserve", "get_booking"}, toolNamesOf(h.toolReqs))
	first := callNode(t, h.trace(), "n3")
	require.Contains(t, first.Error, "read-back get_booking failed, so the call is not known to have worked: ")
	require.False(t, first.Check.Unknown)
	st := h.status()
	require.Equal(t, 2, st.Unverified)
	require.Equal(t, policies.BreakerOpen, st.Breakers["reserve"])
}

// A read-back that reads again after failing clears its tool's count:
// the breaker counts failures in a row.
func TestAReadBackThatReadsAgainClosesItsBreaker(t *testing.T) {
	reads := 0
	h := newHarness(t, unknownSpec(), []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "reserve", `{"room":"12"}`)}},
		{ToolCalls: []activities.ToolCall{call("k2", "reserve", `{"room":"12"}`)}},
		{ToolCalls: []activities.ToolCall{call("k3", "reserve", `{"room":"14"}`)}},
		{Content: "done"},
	}, func(req activities.ToolRequest) (json.RawMessage, error) {
		if req.Tool.Name != "get_booking" {
			return json.RawMessage(`{"id":"b1"}`), nil
		}
		reads++
		if reads == 1 || reads == 3 {
			return nil, temporal.NewNonRetryableApplicationError("bookings are down", string(policies.Transient), nil)
		}
		return json.RawMessage(`{"state":"confirmed"}`), nil
	})
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	// The second read-back finds the first booking: answered with it.
	require.Equal(t, []string{"reserve", "get_booking", "get_booking", "reserve", "get_booking"}, toolNamesOf(h.toolReqs))
	tr := h.trace()
	require.Equal(t, "n3", callNode(t, tr, "n6").ReusedFrom)
	require.True(t, callNode(t, tr, "n9").Check.Unknown)
	require.Equal(t, policies.BreakerClosed, h.status().Breakers["get_booking"], "fail, read, fail: never two in a row")
}

// A read tool whose breaker is open is read again once its cooldown has
// passed: the write asked for again waits for it, and here the booking
// is found, so the call is answered with the first try's result.
func TestAReadBackWaitsForItsBreakersCooldown(t *testing.T) {
	spec := unknownSpec()
	spec.Agent.Policies.Breaker.Failures = 1
	reads := 0
	h := newHarness(t, spec, reserveTwice(), func(req activities.ToolRequest) (json.RawMessage, error) {
		if req.Tool.Name != "get_booking" {
			return json.RawMessage(`{"id":"b1"}`), nil
		}
		if reads++; reads == 1 {
			return nil, temporal.NewNonRetryableApplicationError("bookings are down", string(policies.Transient), nil)
		}
		return json.RawMessage(`{"state":"confirmed"}`), nil
	})
	_, err := h.run(AgentInput{Agent: "agent", Task: "t"})
	require.NoError(t, err)
	require.Equal(t, []string{"reserve", "get_booking", "get_booking"}, toolNamesOf(h.toolReqs))
	tr := h.trace()
	first, second := callNode(t, tr, "n3"), callNode(t, tr, "n6")
	require.True(t, first.Check.Unknown)
	require.Equal(t, "n3", second.ReusedFrom)
	rb := callNode(t, tr, second.Check.ReadBack)
	require.GreaterOrEqual(t, rb.At.Sub(callNode(t, tr, "n4").At), 30*time.Second, "after the cooldown")
	require.Equal(t, policies.BreakerClosed, h.status().Breakers["get_booking"], "the trial read")
}
