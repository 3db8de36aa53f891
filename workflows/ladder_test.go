package workflows

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// The escalation ladder with the model and tools mocked and time skipped:
// each rung's effect on the run.

func stubbornSpec(ladder ...string) *config.Resolved {
	spec := testSpec()
	spec.Agent.Policies.Loop = config.LoopPolicy{Window: 16, Repeats: 3}
	spec.Agent.Policies.Escalation = ladder
	return spec
}

func failingTool(req activities.ToolRequest) (json.RawMessage, error) {
	if req.Tool.Name == "book_flight_backup" {
		return json.RawMessage(`{"confirmation":"BACKUP-1"}`), nil
	}
	return nil, temporal.NewNonRetryableApplicationError("tool "+req.Tool.Name+": HTTP 409: sold out", "persistent", nil)
}

// repeat is a model that sends the same call n times, then replies.
func repeat(n int, tc activities.ToolCall, then activities.ModelReply) []activities.ModelReply {
	var out []activities.ModelReply
	for i := 0; i < n; i++ {
		out = append(out, activities.ModelReply{ToolCalls: []activities.ToolCall{tc}})
	}
	return append(out, then)
}

type updateResult struct {
	rejected error
	result   any
	err      error
	// completed: the update's handler answered (OnComplete was called).
	completed bool
}

func (h *harness) reply(after time.Duration, text string, got *updateResult) {
	h.replyWith(after, signals.ReplyRequest{Text: text, Audit: signals.Audit{By: "ops"}}, got)
}

// replyWith sends the reply update after a while; each gets its own id.
func (h *harness) replyWith(after time.Duration, req signals.ReplyRequest, got *updateResult) {
	h.env.RegisterDelayedCallback(func() {
		h.env.UpdateWorkflow(signals.Reply, "reply-"+after.String(), &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { got.rejected = err },
			OnAccept:   func() {},
			OnComplete: func(v any, err error) { got.result, got.err = v, err },
		}, req)
	}, after)
}

func TestHumanRungWaitsForAReplyThatJoinsTheConversation(t *testing.T) {
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	h := newHarness(t, stubbornSpec("human", "stop"),
		repeat(3, book, activities.ModelReply{Content: "booked another way"}), failingTool)
	var late updateResult
	h.reply(2*time.Hour, "Try the 9am flight instead.", &late)
	res, err := h.run(AgentInput{Agent: "travel", Task: "book"})
	require.NoError(t, err)
	require.JSONEq(t, `"booked another way"`, string(res.Output))
	require.NoError(t, late.rejected)
	require.NoError(t, late.err)
	require.Equal(t, []Escalation{{At: res.Escalations[0].At, Action: "human", Why: res.Escalations[0].Why}}, res.Escalations)
	last := h.requests[len(h.requests)-1].Delta
	require.Equal(t, "user", last[len(last)-1].Role)
	require.Contains(t, last[len(last)-1].Content, "Try the 9am flight instead.")
	tr := h.trace()
	human := nodesByKind(tr, signals.KindHuman)
	require.Len(t, human, 1)
	require.Equal(t, signals.StatusCompleted, human[0].Status)
}

func TestHumanTimeoutClimbsToTheNextRung(t *testing.T) {
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	spec := stubbornSpec("human", "stop")
	spec.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	h := newHarness(t, spec, repeat(10, book, activities.ModelReply{Content: "x"}), failingTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: "book"})
	rep := stopReport(t, err)
	require.Equal(t, []string{"human", "stop"}, actions(rep.Escalations))
	human := nodesByKind(h.trace(), signals.KindHuman)
	require.Contains(t, human[0].Error, "no reply within human_timeout (1h0m0s)")
}

// unavailableTool fails book_flight as a tool that is down (HTTP 503,
// transient).
func unavailableTool(req activities.ToolRequest) (json.RawMessage, error) {
	return nil, temporal.NewApplicationError("tool "+req.Tool.Name+": HTTP 503: unavailable", "transient")
}

// onlyOneAttempt: Temporal does not retry the tool's calls, so a wait of
// the retry rung is the call's only second chance.
func onlyOneAttempt(spec *config.Resolved) *config.Resolved {
	for i := range spec.Tools {
		spec.Tools[i].Retry = &config.Retry{MaxAttempts: 1}
	}
	return spec
}

func TestRetryRungWaitsOnADurableTimer(t *testing.T) {
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	h := newHarness(t, onlyOneAttempt(stubbornSpec("retry", "stop")), repeat(10, book, activities.ModelReply{Content: "x"}), unavailableTool)
	start := h.env.Now()
	_, err := h.run(AgentInput{Agent: "travel", Task: "book"})
	rep := stopReport(t, err)
	require.Equal(t, []string{"retry", "stop"}, actions(rep.Escalations))
	// Three failures, the retry rung's wait, two more until the breaker
	// (5 failures) opens. Then the tool is down: the call waits it out,
	// one trial per cooldown (30s, spread by up to a quarter of it), for
	// outage.max_wait (30m); only then are the calls refused, and three
	// of those in a row are the loop the ladder stops on.
	trials := len(h.toolReqs) - 5
	require.GreaterOrEqual(t, trials, int(30*time.Minute/(30*time.Second+30*time.Second/4)), "a trial every cooldown")
	require.LessOrEqual(t, trials, int(30*time.Minute/(30*time.Second))+1, "no more than one trial a cooldown")
	// The wait ends at the last probe before the bound (30m from the first
	// refusal), on timers in workflow time.
	require.GreaterOrEqual(t, h.env.Now().Sub(start), 30*time.Minute-(30*time.Second+30*time.Second/4))
	calls := nodesByKind(h.trace(), signals.KindCall)
	require.Contains(t, calls[len(calls)-1].Error, "circuit open")
	esc := nodesByKind(h.trace(), signals.KindEscalation)
	require.Contains(t, string(esc[0].Output), "waiting")

	// Before outage-wait, the calls after the fifth were refused at once.
	h = newHarness(t, onlyOneAttempt(stubbornSpec("retry", "stop")), repeat(10, book, activities.ModelReply{Content: "x"}), unavailableTool)
	h.before(versionOutageWait)
	start = h.env.Now()
	_, err = h.run(AgentInput{Agent: "travel", Task: "book"})
	rep = stopReport(t, err)
	require.Equal(t, []string{"retry", "stop"}, actions(rep.Escalations))
	require.Len(t, h.toolReqs, 5)
	require.GreaterOrEqual(t, h.env.Now().Sub(start), 500*time.Millisecond, "the backoff is a timer in workflow time")
	require.Less(t, h.env.Now().Sub(start), 30*time.Minute)
}

// Rungs by class: waiting does not cure a persistent error (HTTP 409), nor
// a transient one Temporal has just retried, so the ladder skips retry.
func TestRetryRungSkipsWhatAWaitCannotCure(t *testing.T) {
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	for name, tc := range map[string]struct {
		spec *config.Resolved
		tool func(activities.ToolRequest) (json.RawMessage, error)
	}{
		"persistent":               {stubbornSpec("retry", "stop"), failingTool},
		"transient, retried twice": {stubbornSpec("retry", "stop"), unavailableTool},
	} {
		t.Run(name, func(t *testing.T) {
			for i := range tc.spec.Tools {
				tc.spec.Tools[i].Retry = &config.Retry{InitialInterval: config.Duration(time.Millisecond), Backoff: 1, MaxInterval: config.Duration(time.Millisecond), MaxAttempts: 2}
			}
			h := newHarness(t, tc.spec, repeat(10, book, activities.ModelReply{Content: "x"}), tc.tool)
			_, err := h.run(AgentInput{Agent: "travel", Task: "book"})
			rep := stopReport(t, err)
			require.Equal(t, []string{"stop"}, actions(rep.Escalations))
			require.Len(t, nodesByKind(h.trace(), signals.KindCall), 3, "stopped at the loop's third call")
		})
	}
}

func TestSubstituteRoutesToTheFallback(t *testing.T) {
	spec := stubbornSpec("substitute", "stop")
	for i := range spec.Tools {
		if spec.Tools[i].Name == "book_flight" {
			spec.Tools[i].Fallback = "book_flight_backup"
		}
	}
	spec.Tools = append(spec.Tools, config.Tool{Name: "book_flight_backup", Builtin: "book_flight"})
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	h := newHarness(t, spec, append(repeat(4, book, activities.ModelReply{}), activities.ModelReply{Content: "done"})[:5], failingTool)
	res, err := h.run(AgentInput{Agent: "travel", Task: "book"})
	require.NoError(t, err)
	require.Equal(t, []string{"substitute"}, actions(res.Escalations))
	require.Equal(t, "book_flight_backup", h.toolReqs[3].Tool.Name, "the fourth call went to the fallback")
	var st signals.Status
	v, err := h.env.QueryWorkflow(signals.QueryStatus)
	require.NoError(t, err)
	require.NoError(t, v.Get(&st))
	require.Equal(t, "open", st.Breakers["book_flight"])
	require.Len(t, st.Loops, 1)
	// The call the fallback served names both tools; the others only theirs.
	require.Equal(t, 1, st.Fallbacks)
	calls := nodesByKind(h.trace(), signals.KindCall)
	require.Len(t, calls, 4)
	require.Equal(t, "book_flight_backup", calls[3].Tool)
	require.Equal(t, "book_flight", calls[3].FallbackOf)
	for _, c := range calls[:3] {
		require.Equal(t, "book_flight", c.Tool)
		require.Empty(t, c.FallbackOf)
	}
	// The model reads its call answered by the fallback's result.
	answered := false
	for _, m := range h.requests[4].Delta {
		answered = answered || (m.Role == "tool" && strings.Contains(m.Content, "BACKUP-1"))
	}
	require.True(t, answered, "the fifth request carries the fallback's result")
}

func TestRollbackInvalidatesTheLoopAndContinuesAsNew(t *testing.T) {
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	search := call("s", "search_flights", `{"from":"NYC"}`)
	replies := append([]activities.ModelReply{{ToolCalls: []activities.ToolCall{search}}}, repeat(3, book, activities.ModelReply{})...)
	h := newHarness(t, stubbornSpec("rollback", "stop"), replies, func(req activities.ToolRequest) (json.RawMessage, error) {
		if req.Tool.Name == "search_flights" {
			return okTool(req)
		}
		return failingTool(req)
	})
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "travel", Task: "book"})
	err := h.env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, err, &can)
	var next AgentInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	run := next.Continued
	require.NotNil(t, run, "the whole run is carried")
	require.Equal(t, []string{"rollback"}, actions(run.Escalations))
	require.Equal(t, 0, run.SentMessages, "the next request carries the shortened conversation whole")
	var invalidated, kept []string
	for _, n := range run.Nodes {
		if n.Status == signals.StatusInvalidated {
			invalidated = append(invalidated, string(n.Kind)+":"+n.Tool)
		} else {
			kept = append(kept, string(n.Kind)+":"+n.Tool)
		}
	}
	require.Equal(t, []string{"request:", "call:book_flight", "request:", "call:book_flight", "request:", "call:book_flight"}, invalidated)
	require.Equal(t, []string{"task:", "request:", "call:search_flights", "escalation:"}, kept)
	conv := buildConversation(run)
	require.Len(t, conv, 5, "system, task, the search and its result, the rollback note")

	// The next generation starts from the shortened conversation: its
	// first request carries it whole, without the loop's calls, and the
	// model, reading the note, finishes another way.
	h2 := newHarness(t, stubbornSpec("rollback", "stop"), []activities.ModelReply{{Content: "UA1 is sold out; booked nothing"}}, failingTool)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.JSONEq(t, `"UA1 is sold out; booked nothing"`, string(res.Output))
	require.Equal(t, 1, res.Generation)
	require.Equal(t, []string{"rollback"}, actions(res.Escalations), "the escalations of the first generation are carried")
	require.Len(t, h2.requests, 1)
	first := h2.requests[0]
	require.Equal(t, 0, first.Base, "the whole conversation, not a delta")
	require.Len(t, first.Delta, 5)
	for _, m := range first.Delta {
		for _, c := range m.ToolCalls {
			require.NotEqual(t, "book_flight", c.Name, "the invalidated calls are not in the conversation")
		}
	}
	require.Contains(t, first.Delta[4].Content, "back to before step")
	require.Empty(t, h2.toolReqs, "no tool ran in the next generation")
	tr := h2.trace()
	require.Len(t, nodesByKind(tr, signals.KindEscalation), 1)
	invalidated = nil
	for _, n := range tr.Nodes {
		if n.Status == signals.StatusInvalidated {
			invalidated = append(invalidated, string(n.Kind)+":"+n.Tool)
		}
	}
	require.Len(t, invalidated, 6, "the loop's nodes stay in the trace, invalidated")
}

func actions(es []Escalation) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Action)
	}
	return out
}

func nodesByKind(tr signals.Trace, kind signals.NodeKind) []signals.Node {
	var out []signals.Node
	for _, n := range tr.Nodes {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

func TestCancelWhileWaitingForAPersonEndsCanceled(t *testing.T) {
	book := call("k", "book_flight", `{"flight_id":"UA1","passengers":1}`)
	h := newHarness(t, stubbornSpec("human", "stop"), repeat(10, book, activities.ModelReply{Content: "x"}), failingTool)
	h.env.RegisterDelayedCallback(h.env.CancelWorkflow, time.Hour)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "travel", Task: "book"})
	err := h.env.GetWorkflowError()
	require.Error(t, err)
	var canceled *temporal.CanceledError
	require.ErrorAs(t, err, &canceled, "a cancelled run ends Canceled, not AgentStopped: %v", err)
	v, qerr := h.env.QueryWorkflow(signals.QueryStatus)
	require.NoError(t, qerr)
	var st signals.Status
	require.NoError(t, v.Get(&st))
	require.Equal(t, signals.PhaseStopped, st.Phase)
}
