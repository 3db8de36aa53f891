package workflows

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// In a conversation, loops are a property of one turn's work (gate
// turn-loops): a person asking the same thing each turn, answered by the
// same call each time, is no loop; a turn going round on its own is one.

// searchTurn is a turn that searches `calls` times the same way, then
// answers.
func searchTurn(turn, calls int) []activities.ModelReply {
	var out []activities.ModelReply
	for i := range calls {
		out = append(out, activities.ModelReply{ToolCalls: []activities.ToolCall{call(fmt.Sprintf("c%d-%d", turn, i), "search_flights", `{"to":"PAR"}`)}})
	}
	return append(out, activities.ModelReply{ToolCalls: []activities.ToolCall{call(fmt.Sprintf("f%d", turn), "final_output", `{"answer": "UA1"}`)}})
}

// repeatedRequest runs a conversation of one turn per entry of calls, the
// person sending "check my balance" each time, the turn searching as
// many times as its entry says. setup, if any, prepares the harness (the
// versions the run answers).
func repeatedRequest(t *testing.T, spec *config.Resolved, calls []int, setup func(*harness)) (*harness, *AgentResult, signals.Status) {
	var replies []activities.ModelReply
	for turn, n := range calls {
		replies = append(replies, searchTurn(turn, n)...)
	}
	h := newHarness(t, spec, replies, okTool)
	if setup != nil {
		setup(h)
	}
	msgs := make([]updateResult, len(calls)-1)
	for i := range msgs {
		h.message(time.Duration(i+1)*10*time.Minute, "check my balance", &msgs[i])
	}
	var st signals.Status
	h.env.RegisterDelayedCallback(func() { st = h.status() }, time.Duration(len(calls))*10*time.Minute)
	res, err := h.run(AgentInput{Agent: "travel", Task: "check my balance"})
	require.NoError(t, err)
	for i, m := range msgs {
		require.NoError(t, m.rejected, "message %d", i+1)
	}
	return h, res, st
}

func TestConversationRepeatingARequestIsNoLoop(t *testing.T) {
	eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
		calls := []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
		h, res, st := repeatedRequest(t, spec, calls, nil)
		require.Equal(t, "completed", string(res.Status))
		require.Empty(t, res.Escalations, "a repeated request is no loop")
		require.Empty(t, st.Loops)
		require.Len(t, h.toolReqs, len(calls), "every turn's call ran")
	})
}

// Recorded before turn-loops, the same conversation is taken for a loop,
// as it was: the run's history replays.
func TestConversationRepeatingARequestBeforeTurnLoops(t *testing.T) {
	eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
		_, res, _ := repeatedRequest(t, spec, []int{1, 1, 1}, func(h *harness) { h.before(versionTurnLoops) })
		require.NotEmpty(t, res.Escalations, "the third turn's call completed a loop")
		require.Equal(t, policies.RungRetry, res.Escalations[0].Action)
	})
}

// A turn that goes round on its own is a loop, whatever came before; and
// the next turn starts the ladder at its bottom rung again: each turn's
// loop is answered by retry.
func TestConversationLoopWithinATurnIsSeen(t *testing.T) {
	eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
		h, res, st := repeatedRequest(t, spec, []int{1, 3, 1, 3}, nil)
		require.Len(t, res.Escalations, 2, "the second and the fourth turns went round")
		for _, e := range res.Escalations {
			require.Equal(t, policies.RungRetry, e.Action, "each turn's loop is met at the bottom rung")
		}
		require.Len(t, st.Loops, 2)
		require.Len(t, h.toolReqs, 8, "no call was blocked")
	})
}

// Version turn-loops is asked only when a turn begins with loop state to
// forget: a conversation whose turns answer at once (no loop event, in
// either shape) records no marker.
func TestTurnLoopsIsAskedOnlyWithLoopStateToForget(t *testing.T) {
	for _, c := range []struct {
		name  string
		spec  *config.Resolved
		calls []int
		asked bool
	}{
		{"free-form turns that answer at once", chatSpec(config.DoubleTextEnqueue), []int{0, 0, 0}, false},
		{"free-form turns that search", chatSpec(config.DoubleTextEnqueue), []int{1, 1, 1}, true},
		{"graph turns that answer at once", chatGraph(chatSpec(config.DoubleTextEnqueue)), []int{0, 0, 0}, false},
		{"graph turns that search", chatGraph(chatSpec(config.DoubleTextEnqueue)), []int{1, 1, 1}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			asked := 0
			_, res, _ := repeatedRequest(t, c.spec, c.calls, func(h *harness) {
				h.before() // a run that asks each change on its own
				h.env.OnGetVersion(versionTurnLoops, workflow.DefaultVersion, 1).Run(func(mock.Arguments) { asked++ }).Return(workflow.Version(1)).Maybe()
			})
			require.Empty(t, res.Escalations)
			require.Equal(t, c.asked, asked > 0, "asked %d times", asked)
		})
	}
}
