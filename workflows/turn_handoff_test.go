package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A conversation handed to an agent without conversation: that agent
// answers what it was handed, with the handoff's context, and the run
// ends with its output; a message to it meanwhile is refused, saying so.

// deskChat is deskSpecs with general a conversation (shaped by shape: as
// it is, or its graph twin), its first turn answered and its second
// message ("where is order 7?") sent at 10 minutes, after setup.
func deskChat(t *testing.T, shape func(*config.Resolved) *config.Resolved, replies []activities.ModelReply, setup func(h *harness)) (map[string]*config.Resolved, AgentInput) {
	specs := deskSpecs()
	general := shape(specs["general"])
	general.Agent.Conversation = &config.Conversation{IdleTimeout: config.Duration(time.Hour)}
	h := newHarness(t, general, append([]activities.ModelReply{finalAnswer("f1", "Hi, how can I help?")}, replies...), okTool)
	h.peers = specs
	h.env.OnActivity(acts.ReadRegistry, mock.Anything, mock.Anything).Return([]activities.AgentLoad{}, nil)
	var msg updateResult
	h.message(10*time.Minute, "where is order 7?", &msg)
	setup(h)
	_, _ = h.run(AgentInput{Agent: "general", Task: "hello"})
	require.NoError(t, msg.rejected)
	next := continuedInput(t, h)
	require.Equal(t, "orders", next.Continued.Spec.Agent.Name, "handed to orders")
	return specs, next
}

// asItIs leaves a spec as it is (the free-form shape).
func asItIs(s *config.Resolved) *config.Resolved { return s }

// ordersAnswers runs the generation orders takes over, the model taking a
// minute, with a message sent to it at 30 seconds: it answers the handed
// message, and the run ends with its answer.
func ordersAnswers(t *testing.T, specs map[string]*config.Resolved, next AgentInput) (*harness, updateResult) {
	h := newHarness(t, specs["orders"], []activities.ModelReply{{Content: "Order 7 ships Monday."}}, okTool)
	h.modelTakes = time.Minute
	var late updateResult
	h.message(30*time.Second, "thanks", &late)
	res, err := h.run(next)
	require.NoError(t, err)
	require.Equal(t, ResultCompleted, res.Status, "its output ends the run")
	require.JSONEq(t, `"Order 7 ships Monday."`, string(res.Output))
	require.Equal(t, []string{"general", "orders"}, res.HandoffPath)
	require.Len(t, h.requests, 1)
	require.Equal(t, "where is order 7?", userMessages(h.requests[0])[0], "orders is asked the turn's message")
	tr := h.trace()
	require.Equal(t, signals.KindOutput, tr.Nodes[len(tr.Nodes)-1].Kind, "no wait for a next message")
	return h, late
}

// The model hands the conversation over mid-turn (the handoff tool, which
// free-form agents are offered): orders answers the turn's message, and a
// message sent while it works is refused with the reason.
func TestAConversationHandedToAnAgentWithoutOneEndsWithItsAnswer(t *testing.T) {
	specs, next := deskChat(t, asItIs, []activities.ModelReply{handoffToolReply("orders")}, func(*harness) {})
	_, late := ordersAnswers(t, specs, next)
	require.ErrorContains(t, late.rejected, "message: the run was handed to agent orders, which is not a conversation (its config has no conversation:): it finishes what it was handed and the run ends with its output; start a new run for a new task")
}

// A person hands a conversation that waits for its next message to orders
// (the handoff message), in either run shape: orders answers the last
// message, and the run ends with its answer.
func TestAWaitingConversationHandedByAPersonEndsWithTheAgentsAnswer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape func(*config.Resolved) *config.Resolved
	}{{"free-form", asItIs}, {"graph", chatGraph}} {
		t.Run(tc.name, func(t *testing.T) {
			var handoff updateResult
			specs, next := deskChat(t, tc.shape, []activities.ModelReply{finalAnswer("f2", "Let me find out.")}, func(h *harness) {
				h.handoffUpdate(20*time.Minute, signals.HandoffRequest{To: "orders", Note: "an order question"}, &handoff)
			})
			require.NoError(t, handoff.rejected)
			_, late := ordersAnswers(t, specs, next)
			require.ErrorContains(t, late.rejected, "the run was handed to agent orders, which is not a conversation")
		})
	}
}
