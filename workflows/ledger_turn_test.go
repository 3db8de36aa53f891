package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// The effect ledger after a rollback, in a conversation's later turn: an
// invalidated write answers the same write asked for again only while no
// standing call has answered for it.

// bookUA1 is a reply booking UA1 with the model's call id id.
func bookUA1(id string) activities.ModelReply {
	return activities.ModelReply{ToolCalls: []activities.ToolCall{call(id, "book_flight", `{"flight_id": "UA1"}`)}}
}

// answered is a reply that ends a turn.
func answered(text string) activities.ModelReply {
	return activities.ModelReply{ToolCalls: []activities.ToolCall{call("f-"+text, "final_output", `{"answer": "`+text+`"}`)}}
}

// twoTurnsAfterARollback runs spec's conversation (double_text: rollback)
// on replies: the message "actually, Rome" cuts the turn's second request
// short and rolls the turn back, and "again for my colleague" begins a
// second turn once the first answered.
func twoTurnsAfterARollback(t *testing.T, spec *config.Resolved, replies []activities.ModelReply, before ...string) *harness {
	h := newHarness(t, writeSpec(spec), replies, okTool)
	if len(before) > 0 {
		h.before(before...)
	}
	h.modelTakes = time.Minute
	var cut, next updateResult
	h.message(90*time.Second, "actually, Rome", &cut)
	h.message(30*time.Minute, "book UA1 again, for my colleague", &next)
	_, err := h.run(AgentInput{Agent: "travel", Task: "book UA1"})
	require.NoError(t, err)
	require.NoError(t, cut.rejected)
	require.NoError(t, next.rejected)
	require.Len(t, h.requests, len(replies))
	return h
}

// The rolled-back turn books UA1 again and the ledger answers it with the
// booking it made (once). The next turn asks for UA1 again: a new
// booking, as it would be had no rollback happened, not the old one again.
func TestALaterTurnsWriteIsNotAnsweredByAWriteTheLedgerAlreadyGaveBack(t *testing.T) {
	eachShape(t, config.DoubleTextRollback, func(t *testing.T, spec *config.Resolved) {
		h := twoTurnsAfterARollback(t, spec, []activities.ModelReply{
			bookUA1("k1"), {Content: "never read"}, bookUA1("k3"), answered("booked"),
			bookUA1("k5"), answered("booked again"),
		})
		books := nodesOfCallsTo(h.trace(), "book_flight")
		require.Len(t, books, 3)
		require.Equal(t, signals.StatusInvalidated, books[0].Status)
		require.Equal(t, books[0].ID, books[1].ReusedFrom, "the rolled-back turn's booking answers its repeat")
		require.Empty(t, books[2].ReusedFrom, "the next turn's booking is its own")
		require.Equal(t, []string{"book_flight", "book_flight"}, toolNamesOf(h.toolReqs))
	})
}

// A run recorded before ledger-latest answers the later turn with the
// old booking, as it did.
func TestALaterTurnsWriteRecordedBeforeLedgerLatestIsReused(t *testing.T) {
	h := twoTurnsAfterARollback(t, chatSpec(config.DoubleTextRollback), []activities.ModelReply{
		bookUA1("k1"), {Content: "never read"}, bookUA1("k3"), answered("booked"),
		bookUA1("k5"), answered("booked again"),
	}, versionLedgerLatest)
	books := nodesOfCallsTo(h.trace(), "book_flight")
	require.Equal(t, books[0].ID, books[2].ReusedFrom)
	require.Equal(t, []string{"book_flight"}, toolNamesOf(h.toolReqs))
}

// The rolled-back turn never books again (the model answers without
// it): the booking stands in the world and no standing call answered for
// it, so the next turn's same booking is answered with it, not made twice.
func TestALaterTurnsWriteIsAnsweredByAWriteNothingGaveBack(t *testing.T) {
	eachShape(t, config.DoubleTextRollback, func(t *testing.T, spec *config.Resolved) {
		h := twoTurnsAfterARollback(t, spec, []activities.ModelReply{
			bookUA1("k1"), {Content: "never read"}, answered("Rome, then"),
			bookUA1("k4"), answered("booked"),
		})
		books := nodesOfCallsTo(h.trace(), "book_flight")
		require.Len(t, books, 2)
		require.Equal(t, books[0].ID, books[1].ReusedFrom)
		require.Equal(t, []string{"book_flight"}, toolNamesOf(h.toolReqs), "the write ran once")
	})
}
