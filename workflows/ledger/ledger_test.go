package ledger

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// fakeRun is a run's trace as the ledger reads it (the part alone; the
// pipeline's tests of the ledger are in workflows/).
type fakeRun struct {
	nodes []trace.Node
	// latest is the ledger-latest gate's answer; asked counts its asks.
	latest bool
	asked  int
	// cut is the part of the trace a message cut short (from..to), if any.
	cut *[2]int
}

func (f *fakeRun) Len() int                     { return len(f.nodes) }
func (f *fakeRun) At(i int) *trace.Node         { return &f.nodes[i] }
func (f *fakeRun) Latest(workflow.Context) bool { f.asked++; return f.latest }

func (f *fakeRun) Node(id string) *trace.Node {
	for i := range f.nodes {
		if f.nodes[i].ID == id {
			return &f.nodes[i]
		}
	}
	return nil
}

func (f *fakeRun) CutInWrite(_ workflow.Context, found func(from, to int) bool) bool {
	return f.cut != nil && found(f.cut[0], f.cut[1])
}

// call is a call node of tool with args.
func call(id, tool, args string, status signals.NodeStatus) trace.Node {
	return trace.Node{Node: signals.Node{ID: id, Kind: signals.KindCall, Tool: tool, Args: json.RawMessage(args), Status: status}}
}

const booking = `{"flight":"LH1","seats":2}`

// bookings is a run whose calls n1, n2... make the same booking, each of
// its status; the first executed of them ran to a result.
func bookings(executed int, statuses ...signals.NodeStatus) *fakeRun {
	run := &fakeRun{}
	for i, status := range statuses {
		n := call(fmt.Sprintf("n%d", i+1), "book", booking, status)
		n.Ran, n.Executed = i < executed, i < executed
		run.nodes = append(run.nodes, n)
	}
	return run
}

// The same write is the same tool with the same canonical arguments (key
// order and spaces aside), matched by the tool the call asked for, the
// latest first, within the nodes asked.
func TestSameWriteIsTheLatestCallOfTheToolWithEqualArguments(t *testing.T) {
	served := call("n3", "backup", ` { "seats": 2, "flight": "LH1" }`, signals.StatusCompleted)
	served.FallbackOf = "book"
	run := &fakeRun{nodes: []trace.Node{
		call("n1", "book", booking, signals.StatusCompleted),
		call("n2", "book", `{"flight":"LH1","seats":3}`, signals.StatusCompleted),
		served,
		call("n4", "cancel", booking, signals.StatusCompleted),
	}}
	l := New(run)
	all := func(*trace.Node) bool { return true }
	require.Equal(t, "n3", l.SameWrite("book", json.RawMessage(booking), 0, 4, all).ID)
	require.Equal(t, "n1", l.SameWrite("book", json.RawMessage(booking), 0, 2, all).ID)
	require.Nil(t, l.SameWrite("book", json.RawMessage(booking), 1, 2, all))
	require.Nil(t, l.SameWrite("book", json.RawMessage(`not json`), 0, 4, all))
}

// A write that ran and was invalidated answers the same write again,
// until a standing call has answered for it; the gate is asked only then.
func TestExecutedWriteIsTheInvalidatedWriteNotAnsweredFor(t *testing.T) {
	run := bookings(1, signals.StatusInvalidated, signals.StatusInvalidated) // n2 failed: never executed
	run.latest = true
	l := New(run)
	require.Equal(t, "n1", l.ExecutedWrite(nil, "book", json.RawMessage(booking)).ID)
	require.Zero(t, run.asked)

	l.AnsweredFor("n1")
	require.True(t, run.nodes[0].Answered)
	require.Nil(t, l.ExecutedWrite(nil, "book", json.RawMessage(booking)), "answered for: a new write")
	require.Equal(t, 1, run.asked)

	run.latest = false // a run recorded before the gate
	require.Equal(t, "n1", l.ExecutedWrite(nil, "book", json.RawMessage(booking)).ID)
}

// A write the turn made before a message cut it short answers the same
// write asked for again, when it completed within the cut part.
func TestExecutedWriteOfATurnCutShort(t *testing.T) {
	run := bookings(2, signals.StatusCompleted, signals.StatusCompleted, signals.StatusFailed)
	l := New(run)
	require.Nil(t, l.ExecutedWrite(nil, "book", json.RawMessage(booking)), "no message cut the turn")
	run.cut = &[2]int{0, 3}
	require.Equal(t, "n2", l.ExecutedWrite(nil, "book", json.RawMessage(booking)).ID)
	run.cut = &[2]int{2, 3}
	require.Nil(t, l.ExecutedWrite(nil, "book", json.RawMessage(booking)), "the turn made it before the cut part")
}

// Only an invalidated write is answered for; a reused answer names the
// write it came from.
func TestReusedNamesItsWriteAndAnswersForIt(t *testing.T) {
	run := bookings(2, signals.StatusCompleted, signals.StatusInvalidated, signals.StatusPending)
	l := New(run)
	l.AnsweredFor("n1")
	require.False(t, run.nodes[0].Answered, "a standing call is not answered for")
	l.Reused("n3", "n2")
	require.Equal(t, "n2", run.nodes[2].ReusedFrom)
	require.True(t, run.nodes[1].Answered)
	l.Reused("n9", "n8") // neither is in the trace
}

// A try that may have acted (a timeout, an unknown failure) is taken, so
// its key goes again; a definite refusal, a call that never ran or one
// that ran to a result is not.
func TestTriedWriteMayHaveActed(t *testing.T) {
	tried := func(id string, class policies.Class) trace.Node {
		n := call(id, "book", booking, signals.StatusInvalidated)
		n.Ran, n.Class = true, class
		return n
	}
	for class, taken := range map[policies.Class]bool{
		policies.Timeout: true, policies.Transient: true, policies.Unclassified: true, policies.Canceled: true,
		policies.Unverified: true, policies.OutcomeUnknown: true, "": true,
		policies.InvalidArgs: false, policies.Refused: false,
	} {
		run := &fakeRun{nodes: []trace.Node{tried("n1", class)}}
		got := New(run).TriedWrite("book", json.RawMessage(booking))
		require.Equal(t, taken, got != nil, "class %q", class)
	}
	// n1 ran to a result; n2 timed out before its activity started.
	run := bookings(1, signals.StatusInvalidated, signals.StatusInvalidated)
	run.nodes[1].Class = policies.Timeout
	require.Nil(t, New(run).TriedWrite("book", json.RawMessage(booking)))
}

// A try's key is the one it ran with, its own id when it recorded none.
func TestKeyOfATry(t *testing.T) {
	n := call("n1", "book", booking, signals.StatusInvalidated)
	require.Equal(t, "n1", KeyOf(&n))
	Ran(&n, "n0-r1")
	require.True(t, n.Ran)
	require.Equal(t, "n0-r1", KeyOf(&n))
	require.False(t, n.Executed)
	Executed(&n)
	require.True(t, n.Executed)
}

// Only the latest try of a write counts: one that failed its check is
// unverified until a later try passes; read-backs are not tries.
func TestUnverifiedWriteIsTheLatestTryThatFailedItsCheck(t *testing.T) {
	try := func(id string, passed bool) trace.Node {
		n := call(id, "book", booking, signals.StatusFailed)
		n.Ran, n.Check = true, &signals.Check{Passed: passed}
		return n
	}
	readBack := call("n3", "book", booking, signals.StatusCompleted)
	readBack.Ran, readBack.CheckOf = true, "n2"
	run := &fakeRun{nodes: []trace.Node{try("n1", true), try("n2", false), readBack}}
	l := New(run)
	require.Equal(t, "n2", l.UnverifiedWrite("book", json.RawMessage(booking)).ID)
	run.nodes = append(run.nodes, try("n4", true))
	require.Nil(t, l.UnverifiedWrite("book", json.RawMessage(booking)))
	unchecked := call("n5", "book", booking, signals.StatusCompleted)
	unchecked.Ran = true
	run.nodes = append(run.nodes, try("n4", false), unchecked)
	require.Nil(t, l.UnverifiedWrite("book", json.RawMessage(booking)), "the latest try had no check")
}
