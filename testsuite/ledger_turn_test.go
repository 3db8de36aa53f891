package testsuite

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// The effect ledger in a conversation's later turn, after a rollback, in
// both run shapes on the worker binary: a write the rolled-back turn made
// answers that turn's repeat of it once; a later turn asking for the same
// write makes a new one, as it would had nothing been rolled back.

func TestParityOfTheLedgerInALaterTurn(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells, parityCell{capability: "a later turn's write after a rollback", shape: shape, run: func(t *testing.T) { laterTurnWritesAnew(t, shape) }})
	}
	runParity(t, cells)
}

// The model books a seat, a message rolls the turn back, the model books
// the same seat again and the ledger answers it with the first booking.
// The next message asks for the seat again (for a colleague): the model
// books it, and the tool gets a second write.
func laterTurnWritesAnew(t *testing.T, shape string) {
	tools := newToolServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		writeJSON(w, 200, map[string]any{"booking": n})
	})
	cfg := doubleTextConfig(config.DoubleTextRollback, tools.URL)
	s := newBinaryStack(t, cfg, map[string]scriptedmodel.Script{"chatter": rebooker})
	run := latestRun{s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: "book me a seat"})}
	require.Eventually(t, func() bool { return len(tools.requests("/book")) == 1 }, time.Minute, 20*time.Millisecond)
	require.Eventually(t, func() bool { return s.model.RequestCount() >= 2 }, time.Minute, 20*time.Millisecond, "the slow reply is asked")
	sendMessage(t, s, run, "window seat, please")
	awaitOutputs(t, s, run, 1)
	sendMessage(t, s, run, "and the same for my colleague")
	awaitOutputs(t, s, run, 2)

	tr := s.trace(run)
	books := callsOf(tr, "book")
	require.Len(t, books, 3)
	require.Equal(t, signals.StatusInvalidated, books[0].Status, "rolled back")
	require.Equal(t, books[0].ID, books[1].ReusedFrom, "the rolled-back turn's repeat is answered by its booking")
	require.Empty(t, books[2].ReusedFrom, "the later turn's booking is its own")
	require.JSONEq(t, `{"booking": 2}`, string(books[2].Output))
	require.Len(t, tools.requests("/book"), 2, "the later turn booked")
	requireVersionMarker(t, run, "ledger-latest")
	recordAndReplay(t, run, historyName("ledger_later_turn", shape))
}
