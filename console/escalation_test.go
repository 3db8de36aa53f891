package console

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

func TestEscalationReadsAsASentence(t *testing.T) {
	for _, tc := range []struct {
		name string
		node signals.Node
		want escalationView
	}{
		{"a rung after a loop, with its note",
			signals.Node{ID: "n8", Status: signals.StatusCompleted,
				Args:   json.RawMessage(`{"rung":"human","loop":{"kind":"no_progress","class":"persistent","period":1,"repeats":3,"at":2}}`),
				Output: json.RawMessage(`"asking a person"`)},
			escalationView{ID: "n8", Status: signals.StatusCompleted, Rung: "human",
				Why: "no_progress loop of period 1 repeated 3 times (persistent errors)", Note: "asking a person"}},
		{"no note yet",
			signals.Node{ID: "n4", Status: signals.StatusCompleted, Args: json.RawMessage(`{"rung":"retry","loop":{"kind":"cycle","period":2,"repeats":2}}`)},
			escalationView{ID: "n4", Status: signals.StatusCompleted, Rung: "retry", Why: "cycle loop of period 2 repeated 2 times"}},
		{"arguments another version wrote: id and status stay",
			signals.Node{ID: "n9", Status: signals.StatusInvalidated, Args: json.RawMessage(`["odd"]`), Output: json.RawMessage(`not json`)},
			escalationView{ID: "n9", Status: signals.StatusInvalidated, Note: "not json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, readEscalation(tc.node))
		})
	}
}
