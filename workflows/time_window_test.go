package workflows

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// A free-form time window counts the model's calls of one tool, whichever
// tool served them: once the tool's breaker opens and its fallback serves
// the calls, they are still calls of the tool the model asked for (as
// loops, blocked calls and the effect ledger see them).
func TestTimeWindowCountsTheToolAskedForNotItsFallback(t *testing.T) {
	spec := stubbornSpec("stop")
	spec.Agent.Policies.Loop.TimeWindow = &config.TimeWindow{Visits: 3, Within: config.Duration(time.Minute)}
	spec.Agent.Policies.Breaker.Failures = 2
	for i := range spec.Tools {
		if spec.Tools[i].Name == "book_flight" {
			spec.Tools[i].Fallback = "book_flight_backup"
		}
	}
	spec.Tools = append(spec.Tools, config.Tool{Name: "book_flight_backup", Builtin: "book_flight"})
	var replies []activities.ModelReply
	for i := range 8 {
		replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{
			call(fmt.Sprintf("k%d", i), "book_flight", fmt.Sprintf(`{"flight_id":"UA%d","passengers":1}`, i)),
		}})
	}
	h := newHarness(t, spec, replies, func(req activities.ToolRequest) (json.RawMessage, error) {
		if req.Tool.Name == "book_flight_backup" {
			return json.RawMessage(`{"confirmation":"BACKUP-1"}`), nil
		}
		return nil, temporal.NewNonRetryableApplicationError("tool "+req.Tool.Name+": HTTP 409: sold out", "persistent", nil)
	})
	_, err := h.run(AgentInput{Agent: "travel", Task: "book"})
	rep := stopReport(t, err)
	require.Contains(t, rep.Reason, "time_window loop")
	calls := nodesByKind(h.trace(), signals.KindCall)
	require.Len(t, calls, 3, "the third call of book_flight within the window is the loop, though its fallback served it")
	require.Equal(t, "book_flight", calls[2].FallbackOf)
	var st signals.Status
	v, err := h.env.QueryWorkflow(signals.QueryStatus)
	require.NoError(t, err)
	require.NoError(t, v.Get(&st))
	require.Len(t, st.Loops, 1)
	require.Equal(t, policies.LoopTimeWindow, st.Loops[0].Kind)
}

// A free-form poll whose every call is new (a new cursor) keeps filling
// the time window: a success of the same tool after a time-window loop is
// the poll going on, not progress off the loop, so the next window climbs
// the ladder (explore, then stop) instead of taking its bottom rung again.
func TestTimeWindowFreeFormClimbsTheLadder(t *testing.T) {
	spec := stubbornSpec("explore", "stop")
	spec.Agent.Policies.Loop.TimeWindow = &config.TimeWindow{Visits: 3, Within: config.Duration(time.Minute)}
	spec.Agent.Policies.MaxSteps = 30
	var replies []activities.ModelReply
	for i := range 40 {
		replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{
			call(fmt.Sprintf("k%d", i), "search_flights", fmt.Sprintf(`{"from":"NYC","cursor":%d}`, i)),
		}})
	}
	h := newHarness(t, spec, replies, okTool)
	_, err := h.run(AgentInput{Agent: "travel", Task: "poll"})
	rep := stopReport(t, err)
	require.Contains(t, rep.Reason, "time_window loop")
	require.Equal(t, []string{"explore", "stop"}, actions(rep.Escalations))
	require.Len(t, nodesByKind(h.trace(), signals.KindCall), 6, "the second window fills at the sixth poll")
}
