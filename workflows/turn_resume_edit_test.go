package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// A conversation that continued as new while it waited for its next
// message waits again in the next generation (resumeTurn). An edit of an
// earlier turn's answer that comes during that wait is carried out: the
// run continues as new from the edited node, that turn under way again,
// and answers it. A run recorded before failed with "interrupted by an
// edit" (version resumed-turn-edit).
func TestAnEditWhileAResumedConversationWaitsIsCarriedOut(t *testing.T) {
	eachShape(t, config.DoubleTextEnqueue, func(t *testing.T, spec *config.Resolved) {
		for _, earlier := range []bool{false, true} {
			next := continuedInput(t, longConversation(t, spec, 3))
			require.NotEmpty(t, next.Continued.Turn.Waiting, "the run continued as new while it waited")
			var request, message string
			for _, n := range next.Continued.Nodes {
				if _, ok := messageOf(&n); ok && message == "" {
					message = n.ID
				}
				if n.Kind == signals.KindRequest && message != "" && request == "" {
					request = n.ID // the answer to the first message
				}
			}
			h := newHarness(t, spec, nil, okTool)
			if earlier {
				h.before(versionResumedTurnEdit)
			}
			var edit updateResult
			h.edit(5*time.Minute, signals.EditRequest{NodeID: request, Output: json.RawMessage(`{"tool_calls": [{"id": "f1", "name": "final_output", "args": {"answer": "edited"}}]}`)}, &edit)
			_, err := h.run(next)
			require.NoError(t, edit.rejected)
			if earlier {
				require.ErrorContains(t, err, "interrupted by an edit", "a run of an earlier version failed")
				continue
			}
			require.NoError(t, edit.err)
			edited := continuedInput(t, h).Continued
			require.Equal(t, message, edited.Turn.Began, "the edited answer's turn is the one under way")
			res, err := newHarness(t, spec, nil, okTool).run(AgentInput{Continued: edited})
			require.NoError(t, err)
			require.JSONEq(t, `{"answer": "edited"}`, string(res.Output), "the turn answered again, then idle")
		}
	})
}
