package testsuite

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

// Forks on the real server and worker, the model scripted (a test double),
// the shop's HTTP tools on loopback counting every request (edit_test.go).

// An edit with fork: true of a run waiting for approval: the answer names
// the fork's workflow; the fork goes on from the edited look-up and places
// its own order (the effect ledger never answers a fork's write with the
// source's) under its own Idempotency-Key; the source is left as it was,
// and completes with its own value once approved.
func TestForkOfARunningRunLeavesTheSourceAsItWas(t *testing.T) {
	t.Parallel()
	s, tools, run := startShop(t)
	id := run.GetID()
	confirm := s.awaitApproval(id, 0, "confirm")
	before := s.trace(s.latest(id))
	lookup := callsOf(before, "lookup")[0]

	res, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"item":"book","price":12}`), Fork: true,
		Audit: signals.Audit{By: "dana", Reason: "what if it cost 12"}})
	require.NoError(t, err)
	require.Equal(t, id+"-fork-"+res.NodeID, res.WorkflowID)
	require.Equal(t, lookup.ID, res.Edited)
	require.Equal(t, 0, res.Generation, "the source stays in its generation")
	require.Empty(t, res.Invalidated)
	forkID := res.WorkflowID

	// The fork: its own write, then its own confirm to approve.
	fc := s.awaitApproval(forkID, 0, "confirm")
	fork := s.latest(forkID)

	// The source: unchanged, still waiting for the same confirm.
	st := s.status(s.latest(id))
	require.Equal(t, 0, st.Generation)
	require.Equal(t, signals.PhaseAwaitingApproval, st.Phase)
	require.Len(t, st.PendingApprovals, 1)
	require.Equal(t, confirm.CallID, st.PendingApprovals[0].CallID)
	src := s.trace(s.latest(id))
	require.Len(t, src.Nodes, len(before.Nodes)+1, "the source only records the fork")
	for i, n := range before.Nodes {
		require.Equal(t, n.Status, src.Nodes[i].Status, n.ID)
		require.NotEqual(t, signals.StatusInvalidated, src.Nodes[i].Status, n.ID)
	}
	record := src.Nodes[len(src.Nodes)-1]
	require.Equal(t, res.NodeID, record.ID)
	require.Equal(t, signals.KindEdit, record.Kind)
	require.Equal(t, "dana", record.By)
	require.Equal(t, []string{lookup.ID}, record.Parents)
	require.JSONEq(t, `{"fork": "`+forkID+`"}`, string(record.Output))
	require.JSONEq(t, `{"item":"book","price":10}`, string(callsOf(src, "lookup")[0].Output))

	s.approveCall(id, confirm.CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 10, "order": "O-1"}`, string(out.Output), "the source keeps its own value")
	require.Equal(t, 0, out.Generation)

	// The fork outlives its source (it is a child the source abandons).
	require.Equal(t, signals.PhaseAwaitingApproval, s.status(fork).Phase)
	s.approveCall(forkID, fc.CallID)
	forkOut, err := s.result(fork)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 12, "order": "O-2"}`, string(forkOut.Output), "the fork goes on with the edited value and its own order")

	orders := tools.requests("/order")
	require.Len(t, orders, 2, "one order each: the source's and the fork's")
	require.Equal(t, id, orders[0].WorkflowID)
	require.Equal(t, forkID, orders[1].WorkflowID)
	require.NotEmpty(t, orders[1].IdempotencyKey)
	require.NotEqual(t, orders[0].IdempotencyKey, orders[1].IdempotencyKey, "the fork's write has its own key")
	require.Len(t, tools.requests("/lookup"), 1, "the fork does not look up again: it starts from the edited result")

	ft := s.trace(fork)
	for _, n := range ft.Nodes {
		require.NotEqual(t, signals.StatusInvalidated, n.Status, "the source's future is not the fork's past: %s", n.ID)
	}
	forkWrites := callsOf(ft, "place_order")
	require.Len(t, forkWrites, 1)
	require.Empty(t, forkWrites[0].ReusedFrom, "a fork's write is never answered by the source's")
	var forkEdits []signals.Node
	for _, n := range nodesOf(ft, signals.KindEdit) {
		if n.ID != res.NodeID { // the source's record of the fork, copied with what preceded it
			forkEdits = append(forkEdits, n)
		}
	}
	require.Len(t, forkEdits, 1)
	require.Equal(t, "dana", forkEdits[0].By)
	require.Equal(t, "what if it cost 12", forkEdits[0].Reason)
	require.JSONEq(t, `{"item":"book","price":10}`, string(forkEdits[0].Before))
	require.JSONEq(t, `{"item":"book","price":12}`, string(forkEdits[0].After))
	require.Contains(t, string(forkEdits[0].Output), `"forked_from":{"node_id":"`+lookup.ID+`","workflow_id":"`+id+`"}`)

	recordAndReplay(t, s.latest(id), "fork_edit_source")
	recordAndReplay(t, fork, "fork_edit_child")
}

// A closed run cannot take an edit, but any run can be forked through the
// input's from: the fork starts where the source was at the node, applies
// from.edit, and writes under its own key; the source stays closed.
func TestForkOfAClosedRunThroughTheInput(t *testing.T) {
	t.Parallel()
	s, tools, run := startShop(t)
	id := run.GetID()
	s.approveCall(id, s.awaitApproval(id, 0, "confirm").CallID)
	out, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 10, "order": "O-1"}`, string(out.Output))
	src := s.trace(s.latest(id))
	lookup := callsOf(src, "lookup")[0]

	// As a starter sends it: raw JSON, the agent left out.
	fork := s.startAny(t, map[string]any{"from": map[string]any{
		"workflow_id": id, "node_id": lookup.ID,
		"edit": map[string]any{"output": map[string]any{"item": "book", "price": 15}, "by": "erin", "reason": "a later price"},
	}})
	s.approveCall(fork.GetID(), s.awaitApproval(fork.GetID(), 0, "confirm").CallID)
	forkOut, err := s.result(fork)
	require.NoError(t, err)
	require.JSONEq(t, `{"price": 15, "order": "O-2"}`, string(forkOut.Output))
	require.Equal(t, "shop", forkOut.Agent, "the fork runs the source's agent")

	orders := tools.requests("/order")
	require.Len(t, orders, 2)
	require.Equal(t, fork.GetID(), orders[1].WorkflowID)
	require.NotEqual(t, orders[0].IdempotencyKey, orders[1].IdempotencyKey)
	require.Len(t, tools.requests("/lookup"), 1)

	require.Equal(t, src.Nodes, s.trace(s.latest(id)).Nodes, "the closed source is left as it was")
	ft := s.trace(fork)
	edits := nodesOf(ft, signals.KindEdit)
	require.Len(t, edits, 1)
	require.Equal(t, "erin", edits[0].By)
	require.Equal(t, []string{lookup.ID}, edits[0].Parents)
	require.JSONEq(t, `{"item":"book","price":15}`, string(edits[0].After))
	require.Contains(t, string(edits[0].Output), `"forked_from":{"node_id":"`+lookup.ID+`","workflow_id":"`+id+`"}`)
	require.Equal(t, ft.Nodes[0].Args, src.Nodes[0].Args, "the fork keeps the source's task")

	// What a fork reads of its source (and keeps in its history, gzipped,
	// out of reach of a plain scan of the history) holds no address.
	var packed []byte
	s.query(s.latest(id), signals.QueryRun, &packed)
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	require.NoError(t, err)
	whole, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.Contains(t, string(whole), `"nodes"`)
	for _, leak := range []string{s.model.URL(), strings.TrimPrefix(tools.URL, "http://")} {
		require.NotContains(t, string(whole), leak)
	}

	recordAndReplay(t, fork, "fork_from_closed_run")
}

// Forks the input cannot start: each fails at once, naming what is wrong.
func TestBadForksFailNamingTheProblem(t *testing.T) {
	t.Parallel()
	s, tools, run := startShop(t)
	id := run.GetID()
	s.awaitApproval(id, 0, "confirm")
	tr := s.trace(s.latest(id))
	lookup, write := callsOf(tr, "lookup")[0], callsOf(tr, "place_order")[0]
	// An edit, so the source has an invalidated node; then it closes.
	_, err := s.edit(id, signals.EditRequest{NodeID: lookup.ID, Output: json.RawMessage(`{"item":"book","price":11}`)})
	require.NoError(t, err)
	s.approveCall(id, s.awaitApproval(id, 1, "confirm").CallID)
	_, err = s.result(run)
	require.NoError(t, err)
	reissued := callsOf(s.trace(s.latest(id)), "place_order")[1]

	for _, tt := range []struct {
		name string
		from map[string]any
		want string
	}{
		{"no such workflow", map[string]any{"workflow_id": "no-such-run-anywhere", "node_id": "n3"}, `from.workflow_id: no workflow "no-such-run-anywhere" in this namespace`},
		{"no such node", map[string]any{"workflow_id": id, "node_id": "n99"}, `input.from: "n99" is not a node of this run`},
		{"an invalidated node", map[string]any{"workflow_id": id, "node_id": write.ID}, write.ID + ` was invalidated by an earlier edit`},
		{"args against the schema", map[string]any{"workflow_id": id, "node_id": reissued.ID, "edit": map[string]any{"args": map[string]any{"qty": "x"}}},
			`input.from: "args" for place_order`},
		{"an unknown edit field", map[string]any{"workflow_id": id, "node_id": lookup.ID, "edit": map[string]any{"outptu": 1}}, `input.from.edit: want {"output"?`},
		{"a fork in the fork", map[string]any{"workflow_id": id, "node_id": lookup.ID, "edit": map[string]any{"output": 1, "fork": true}}, `the run is the fork already`},
	} {
		fork := s.startAny(t, map[string]any{"from": tt.from})
		_, err := s.result(fork)
		require.ErrorContains(t, err, tt.want, tt.name)
	}
	// A fork takes its task from the source.
	other := s.startAny(t, map[string]any{"from": map[string]any{"workflow_id": id, "node_id": lookup.ID}, "task": "another task"})
	_, err = s.result(other)
	require.ErrorContains(t, err, "a fork takes the task, input and output_schema of the run it forks")
	require.Len(t, tools.requests("/order"), 1, "no bad fork wrote anything")
}
