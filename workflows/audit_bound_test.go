package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A message's "by" is who sent it, not a place for a payload: about 220
// KiB of it fits in a message whose text is held to 32 KiB, and it would be
// carried in the trace for good. The update is refused naming the field
// and its bound; the signal is recorded and ignored. A run recorded
// before the bound takes the signal as it did (version bounded-audit).
func TestAMessageWhoseByIsOverItsBoundIsRefused(t *testing.T) {
	huge := strings.Repeat("b", 220<<10)
	for _, earlier := range []bool{false, true} {
		h := newHarness(t, chatSpec(config.DoubleTextEnqueue), []activities.ModelReply{
			{Content: "Where to?"}, {Content: "Noted."},
		}, okTool)
		if earlier {
			h.before(versionBoundedAudit)
		}
		var rejected error
		h.env.RegisterDelayedCallback(func() {
			h.env.UpdateWorkflow(signals.Message, "big-by", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { rejected = err }, OnAccept: func() {}, OnComplete: func(any, error) {},
			}, signals.MessageRequest{Text: "Paris", Audit: signals.Audit{By: huge}})
		}, 5*time.Minute)
		h.env.RegisterDelayedCallback(func() {
			h.env.SignalWorkflow(signals.Message, signals.MessageRequest{Text: "Rome", Audit: signals.Audit{By: huge}})
		}, 10*time.Minute)
		_, err := h.run(AgentInput{Agent: "travel", Task: "book a trip"})
		require.NoError(t, err)
		require.ErrorContains(t, rejected, `message: "by" is 225280 bytes, over the 256 bytes it may hold`, "the update is refused by its validator, in every version")

		var taken []string
		ignored := ""
		for _, n := range h.trace().Nodes {
			if text, ok := messageOf(&Node{Node: n}); ok && n.Kind == signals.KindTask {
				taken = append(taken, text)
			}
			if n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped {
				ignored = n.Error
			}
		}
		if earlier {
			require.Equal(t, []string{"Rome"}, taken, "a run of an earlier version takes the signal")
			continue
		}
		require.Empty(t, taken, "the signal is not taken")
		require.Contains(t, ignored, `ignored message signal: message: "by" is 225280 bytes, over the 256 bytes it may hold`)
	}
}
