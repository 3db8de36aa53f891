package testsuite

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// The writes of TestParityOfCheckedCalls: read-backs, a write whose
// check failed asked for again, and writes that change nothing.

var bookRoom = scriptedmodel.CallTurn("book_room", map[string]any{"room": "12"})

// book_room books and get_booking finds it: the call passes its
// read-back, a call of its own in the trace that the model never sees.
func readBackPasses(t *testing.T, shape string) {
	tools := newHotelServer(t, &hotelDesk{})
	s, run := startChecker(t, shape, tools, scriptedmodel.Sequence(bookRoom, finished))
	requireOutput(t, s, run)

	tr := s.trace(run)
	call := callsOf(tr, "book_room")[0]
	require.Equal(t, signals.StatusCompleted, call.Status)
	reads := callsOf(tr, "get_booking")
	require.Len(t, reads, 1)
	require.Equal(t, call.ID, reads[0].CheckOf)
	require.Equal(t, []string{call.ID}, reads[0].Parents)
	require.Equal(t, &signals.Check{Kind: signals.CheckReadBack, Condition: "result.state == 'confirmed' && result.room == args.room", Passed: true, ReadBack: reads[0].ID}, call.Check)
	read := tools.requests("/get_booking")
	require.Len(t, read, 1)
	require.JSONEq(t, `{"id": "B1"}`, read[0].Body, "the read-back's args name the call's result")
	require.Equal(t, map[string]any{"confirmation": "B1"}, envelope(t, s, 1))
	for _, req := range s.model.Requests() {
		for _, tool := range req.Tools {
			require.NotEqual(t, "get_booking", tool.Function.Name, "a read-back tool is never offered")
		}
	}
	require.Zero(t, s.status(run).Unverified)
}

// get_booking answers 404: an answer about the booking (not there), not
// a read-back that could not read, so the call is unverified, naming the
// read-back that failed (one that cannot read: verify_unknown_test.go).
func readBackFails(t *testing.T, shape string) {
	tools := newHotelServer(t, &hotelDesk{readsGone: true})
	s, run := startChecker(t, shape, tools, scriptedmodel.Sequence(bookRoom, finished))
	requireOutput(t, s, run)

	tr := s.trace(run)
	call := callsOf(tr, "book_room")[0]
	require.Equal(t, signals.StatusFailed, call.Status)
	require.Contains(t, call.Error, "read-back get_booking failed, so the call is not known to have worked: ")
	read := callsOf(tr, "get_booking")[0]
	require.Equal(t, signals.StatusFailed, read.Status)
	require.Equal(t, read.ID, call.Check.ReadBack)
	requireUnverifiedEnvelope(t, envelope(t, s, 1), call)
	require.Len(t, tools.requests("/book_room"), 1)
	require.Equal(t, 1, s.status(run).Unverified)
}

// The booking lands late: the first read-back finds nothing, so the call
// is unverified. The model books again: the read-back runs first, finds
// the booking, and the call is answered with the first try's result;
// the tool server got the write once.
func unverifiedWriteDidHappen(t *testing.T, shape string) {
	tools := newHotelServer(t, &hotelDesk{late: true})
	s, run := startChecker(t, shape, tools, scriptedmodel.Sequence(bookRoom, bookRoom, finished))
	requireOutput(t, s, run)

	require.Len(t, tools.requests("/book_room"), 1, "the write happened once")
	require.Len(t, tools.requests("/get_booking"), 2, "a read-back each time")
	tr := s.trace(run)
	calls := callsOf(tr, "book_room")
	require.Len(t, calls, 2)
	first, second := calls[0], calls[1]
	require.Equal(t, signals.StatusFailed, first.Status)
	require.Contains(t, first.Error, `read-back get_booking({"id":"B1"}): expect "result.state == 'confirmed' && result.room == args.room" is false: result.state = "missing"`)
	requireUnverifiedEnvelope(t, envelope(t, s, 1), first)

	require.Equal(t, signals.StatusCompleted, second.Status)
	require.Equal(t, first.ID, second.ReusedFrom)
	require.JSONEq(t, `{"confirmation": "B1"}`, string(second.Output))
	require.True(t, second.Check.Passed)
	require.Contains(t, second.Check.Reason, "the write of "+first.ID+" took effect after all")
	reads := callsOf(tr, "get_booking")
	require.Equal(t, []string{first.ID, second.ID}, []string{reads[0].CheckOf, reads[1].CheckOf})
	require.Equal(t, map[string]any{"confirmation": "B1"}, envelope(t, s, 2))
	require.Equal(t, 1, s.status(run).Unverified)

	requireVersionMarker(t, run, "checked-calls")
	recordAndReplay(t, run, historyName("verify_read_back_did_happen", shape))
}

// The server drops the first write and still answers: the read-back finds
// nothing. Asked for again, the read-back still finds nothing, so the
// write runs once more with the first try's Idempotency-Key, and then
// verifies.
func unverifiedWriteDidNotHappen(t *testing.T, shape string) {
	tools := newHotelServer(t, &hotelDesk{dropFirst: true})
	s, run := startChecker(t, shape, tools, scriptedmodel.Sequence(bookRoom, bookRoom, finished))
	requireOutput(t, s, run)

	writes := tools.requests("/book_room")
	require.Len(t, writes, 2)
	require.NotEmpty(t, writes[0].IdempotencyKey)
	require.Equal(t, writes[0].IdempotencyKey, writes[1].IdempotencyKey, "the second try takes the first's key")
	require.Len(t, tools.requests("/get_booking"), 3, "after the write, before the second, after it")
	calls := callsOf(s.trace(run), "book_room")
	require.Len(t, calls, 2)
	require.Equal(t, signals.StatusFailed, calls[0].Status)
	require.Equal(t, signals.StatusCompleted, calls[1].Status)
	require.Empty(t, calls[1].ReusedFrom, "it ran")
	require.True(t, calls[1].Check.Passed)
	require.Equal(t, 1, s.status(run).Unverified)
}

// cancel answers every call alike: the third identical call is a
// no-progress loop of class no_op, and the ladder (stop) ends the run.
func noOpWriteLoops(t *testing.T, shape string) {
	loop, run := requireRepeatsStop(t, shape, "cancel")
	require.Equal(t, policies.LoopNoProgress, loop.Kind)
	require.Equal(t, string(policies.NoOp), loop.Class)
	requireVersionMarker(t, run, "no-op-writes")
	recordAndReplay(t, run, historyName("verify_no_op_loop", shape))
}

// ping is repeatable: its identical calls are real work, only a plain
// cycle of them is a loop, never no_op.
func repeatableWriteIsNoNoOp(t *testing.T, shape string) {
	loop, _ := requireRepeatsStop(t, shape, "ping")
	require.Equal(t, policies.LoopCycle, loop.Kind)
	require.Empty(t, loop.Class)
}

// requireRepeatsStop runs a model calling tool with the same arguments
// until the loop ladder stops the run, and answers the loop it saw.
func requireRepeatsStop(t *testing.T, shape, tool string) (policies.Loop, client.WorkflowRun) {
	t.Helper()
	again := scriptedmodel.CallTurn(tool, map[string]any{"order": 7})
	tools := newHotelServer(t, &hotelDesk{})
	s, run := startChecker(t, shape, tools, func(openaiRequest) scriptedmodel.Turn { return again })
	_, err := s.result(run)
	stoppedReport(t, err)

	tr := s.trace(run)
	calls := callsOf(tr, tool)
	require.Len(t, calls, 3, "the third repeat is the loop")
	require.Len(t, tools.requests("/"+tool), 3)
	for _, c := range calls {
		require.Equal(t, signals.StatusCompleted, c.Status, "the calls themselves succeeded")
	}
	esc := nodesOf(tr, signals.KindEscalation)
	require.Len(t, esc, 1)
	var args struct{ Loop policies.Loop }
	require.NoError(t, json.Unmarshal(esc[0].Args, &args))
	return args.Loop, run
}
