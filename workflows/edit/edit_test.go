package edit

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/ladder"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/trace"
	"github.com/unstuck-dev/unstuck/workflows/walk"
)

// fakeHost answers what a checkpoint asks of the run; anything else it is
// asked panics (the Host it embeds is nil).
type fakeHost struct {
	Host
	graph bool
}

func (h fakeHost) Graph() bool { return h.graph }

// JSON encodes what the tests build, which JSON can hold.
func (h fakeHost) JSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// run is the part of a run a checkpoint keeps, and the edits over it.
type run struct {
	tr          trace.Trace
	escape      ladder.State
	walk        walk.Walk
	step        int
	escalations []ladder.Escalation
	dropped     int
	rungs       map[string]int
	failures    int
	lastError   string
	life        life.Life
	mem         Memory
}

func (r *run) edits(graph bool) *Edits {
	return New(Parts{Memory: &r.mem, Trace: &r.tr, Life: &r.life, At: Counters{
		Escape: &r.escape, Walk: &r.walk, Step: &r.step, Escalations: &r.escalations, EscalationsDropped: &r.dropped,
		DroppedRungs: &r.rungs, OutputFailures: &r.failures, LastError: &r.lastError,
	}, Host: fakeHost{graph: graph}})
}

func (r *run) add(kind signals.NodeKind, status signals.NodeStatus, parents ...string) *trace.Node {
	return r.tr.Add(trace.Node{Node: signals.Node{Kind: kind, Status: status, Parents: parents}}, "agent", time.Unix(0, 0))
}

// A checkpoint is carried in the run's JSON: its fields and their order
// stay as runs recorded them (the loop escape's, the walk's, its own).
func TestACheckpointKeepsItsJSON(t *testing.T) {
	one := 1
	cp := Checkpoint{
		State: ladder.State{Loops: []signals.Loop{{At: "n3"}}, LoopsDropped: 2, LastCycle: []string{"c"}},
		Walk:  walk.Walk{GraphAt: "A", ResumeFrom: &walk.Point{Node: "B", OK: true}, Visits: map[string]int{"A": 1}, ExcludedEdges: []string{"A->B"}},
		Step:  3, EscalationsLen: &one, LoopsLen: &one, Escalations: []ladder.Escalation{{At: "n4"}},
		OutputFailures: 2, LastError: "late",
	}
	require.Equal(t, `{"ladder":{"rungs":null,"next":0},"loops":[{"at":"n3","kind":"","cycle":null,"repeats":0}],"loops_dropped":2,"last_cycle":["c"],`+
		`"graph_at":"A","resume_from":{"node":"B","ok":true},"visits":{"A":1},"excluded_edges":["A-\u003eB"],`+
		`"step":3,"escalations_len":1,"loops_len":1,"escalations":[{"at":"n4","action":"","why":""}],"output_failures":2,"last_error":"late"}`,
		string(fakeHost{}.JSON(cp)))
}

// An edit restores the counters at the node's checkpoint; a graph's walk
// only in a graph run, and the task afresh.
func TestRestoreAtPutsBackTheCheckpoint(t *testing.T) {
	for _, graph := range []bool{false, true} {
		r := &run{escape: ladder.State{Loops: []signals.Loop{}}}
		task := r.add(signals.KindTask, signals.StatusCompleted)
		req := r.add(signals.KindRequest, signals.StatusRunning, task.ID)
		r.step, r.failures, r.lastError, r.walk = 2, 1, "then", walk.Walk{GraphAt: "A", Visits: map[string]int{"A": 1}}
		r.edits(graph).Checkpoint(req.ID)

		r.step, r.failures, r.lastError, r.walk = 7, 3, "now", walk.Walk{GraphAt: "B", Visits: map[string]int{"A": 1, "B": 4}}
		r.escalations = append(r.escalations, ladder.Escalation{At: "n9", Action: "retry"})
		r.edits(graph).RestoreAt(r.tr.Node(req.ID))
		require.Equal(t, 2, r.step)
		require.Equal(t, 1, r.failures)
		require.Equal(t, "then", r.lastError)
		require.Empty(t, r.escalations, "cut back to the checkpoint's")
		wantAt := "B"
		if graph {
			wantAt = "A"
		}
		require.Equal(t, wantAt, r.walk.GraphAt, "graph %v", graph)

		r.edits(graph).RestoreAt(r.tr.Node(task.ID))
		require.Zero(t, r.step)
		require.Equal(t, walk.Walk{Visits: map[string]int{}}, r.walk, "the task starts afresh")
	}
}

// A resumed reply keeps the calls the edit left settled: not one that
// did not finish, was invalidated, or is final_output.
func TestKeptCallsAreTheSettledValidOnes(t *testing.T) {
	r := &run{}
	req := r.add(signals.KindRequest, signals.StatusCompleted)
	call := func(id string, status signals.NodeStatus) {
		n := r.add(signals.KindCall, status, req.ID)
		n.ModelCallID = id
	}
	call("done", signals.StatusCompleted)
	call("failed", signals.StatusFailed)
	call("pending", signals.StatusPending)
	call("gone", signals.StatusInvalidated)
	call("final", signals.StatusCompleted)
	kept := func(id, name string) bool {
		return Kept(&r.tr, req.ID, activities.ToolCall{ID: id, Name: name}) != nil
	}
	require.True(t, kept("done", "a"))
	require.True(t, kept("failed", "a"))
	require.False(t, kept("pending", "a"))
	require.False(t, kept("gone", "a"))
	require.False(t, kept("final", signals.FinalOutputTool), "final_output is settled again")
	require.False(t, kept("other", "a"), "a call the request never made")
}
