package waiting

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/life"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// step is a step's waits as a run would keep them.
type step struct{ human, turn string }

func (s step) HumanNode() string { return s.human }
func (s step) TurnNode() string  { return s.turn }

// fakeRun answers what the tests ask of the run; anything else panics
// (the embedded Host is nil).
type fakeRun struct {
	Host[step]
	graph  bool
	parked map[string]time.Time
	nodes  map[string]*trace.Node
	// carried is what the run carried; dropped: DropResume was called.
	carried *Carried
	rung    bool
	dropped bool
}

func (f *fakeRun) Graph() bool                  { return f.graph }
func (f *fakeRun) Node(id string) *trace.Node   { return f.nodes[id] }
func (f *fakeRun) Carried() (*Carried, bool)    { return f.carried, f.rung }
func (f *fakeRun) DropResume()                  { f.dropped = true }
func (f *fakeRun) Parked() map[string]time.Time { return f.parked }
func (f *fakeRun) Budget() *budget.Budget       { return budget.New(nil, &budget.Hold{}, nil) }
func (f *fakeRun) TurnWaiting() bool            { return false }

// fakePeople are the run's waits for people, as the tests set them.
type fakePeople struct {
	People
	node, held string
	rung       bool
	waiting    bool
	approvals  map[string]string
	decisions  map[string]*signals.ApproveRequest
	levels     map[string]int
	reply      *signals.ReplyRequest
}

func (p *fakePeople) HumanRung() bool                             { return p.rung }
func (p *fakePeople) Waiting() bool                               { return p.waiting }
func (p *fakePeople) WaitApproval(id, tool string)                { p.approvals[id] = tool }
func (p *fakePeople) Decide(id string, d *signals.ApproveRequest) { p.decisions[id] = d }
func (p *fakePeople) KeepEscalations(id string, n int)            { p.levels[id] = n }
func (p *fakePeople) KeepReply(reply *signals.ReplyRequest)       { p.reply = reply }
func (p *fakePeople) WaitAgainAt(node string, rung bool)          { p.node, p.rung, p.held = node, rung, node }

func (p *fakePeople) TakeHeld() string {
	id := p.held
	p.held = ""
	return id
}

func newFakes() (*fakeRun, *fakePeople, *Starts, *life.Life) {
	starts := NewStarts()
	l := &life.Life{}
	if err := l.Start(); err != nil {
		panic(err)
	}
	return &fakeRun{nodes: map[string]*trace.Node{}},
		&fakePeople{approvals: map[string]string{}, decisions: map[string]*signals.ApproveRequest{}, levels: map[string]int{}}, &starts, l
}

// What the run carries keeps its JSON, so every recorded history replays.
func TestCarriedKeepsItsJSON(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := Carried{
		Since:     map[string]time.Time{"n3": at},
		Decisions: map[string]*signals.ApproveRequest{"n3": {CallID: "n3", Decision: "approve"}},
		Human:     "n7",
		Reply:     &signals.ReplyRequest{Text: "yes"},
		Budget:    &budget.Carried{Node: "n8"},
	}
	got, err := json.Marshal(c)
	require.NoError(t, err)
	require.JSONEq(t, `{"since":{"n3":"2026-01-02T03:04:05Z"},"decisions":{"n3":{"call_id":"n3","decision":"approve"}},
		"human":"n7","reply":{"text":"yes"},"budget":{"node":"n8","crossing":{"limit":"","spent":0,"need":0,"cap":0}}}`, string(got))
	empty, err := json.Marshal(Carried{Since: map[string]time.Time{}, Decisions: map[string]*signals.ApproveRequest{}, Escalations: map[string]int{}})
	require.NoError(t, err)
	require.Equal(t, `{}`, string(empty), "a run waiting for nothing of a kind carries nothing of it")
}

// Each kind of wait asks its own gate: the ladder's human rung first,
// then the run's shape.
func TestTheGateFollowsTheKindOfWait(t *testing.T) {
	run, people, starts, l := newFakes()
	w := New[step](run, people, starts, l)
	require.Equal(t, GateFreeForm, w.gate())
	run.graph = true
	require.Equal(t, GateGraph, w.gate())
	people.rung = true
	require.Equal(t, GateRung, w.gate(), "the human rung's gate, in either shape")
	run.parked = map[string]time.Time{"n5": time.Time{}}
	people.rung, people.waiting = false, true
	require.Equal(t, GateGraph, w.gate(), "a parked call beside a wait for a person: that wait's gate")
	people.waiting = false
	require.Equal(t, GateOutage, w.gate(), "a run waiting out an outage and for nothing else, in either shape")
	run.graph = false
	require.Equal(t, GateOutage, w.gate())
}

// A generation that continued while waiting waits for the same things:
// the calls still awaiting approval, the human node, each wait's start,
// the decisions and the reply accepted before.
func TestTheNextGenerationExpectsWhatWasCarried(t *testing.T) {
	run, people, starts, l := newFakes()
	at := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	run.nodes["n3"] = &trace.Node{Node: signals.Node{ID: "n3", Kind: signals.KindCall, Status: signals.StatusAwaitingApproval, Tool: "b"}}
	run.nodes["n4"] = &trace.Node{Node: signals.Node{ID: "n4", Kind: signals.KindCall, Status: signals.StatusCompleted, Tool: "a"}}
	run.nodes["n7"] = &trace.Node{Node: signals.Node{ID: "n7", Kind: signals.KindHuman, Status: signals.StatusPending}}
	decision := &signals.ApproveRequest{CallID: "n3", Decision: "approve"}
	run.carried = &Carried{
		Since:       map[string]time.Time{"n3": at, "n4": at, "n7": at.Add(time.Minute)},
		Decisions:   map[string]*signals.ApproveRequest{"n3": decision},
		Escalations: map[string]int{"n3": 1},
		Human:       "n7",
		Reply:       &signals.ReplyRequest{Text: "yes"},
	}
	run.rung = true
	w := New[step](run, people, starts, l)
	w.ExpectCarried()
	require.Equal(t, "b", people.approvals["n3"], "the call waits for approval of its tool again")
	require.NotContains(t, people.approvals, "n4", "a settled call waits for nothing")
	require.Equal(t, decision, people.decisions["n3"])
	require.Equal(t, 1, people.levels["n3"], "the call's approval stays escalated")
	require.Equal(t, "yes", people.reply.Text)
	require.True(t, people.rung, "the ladder's human rung waits again")
	require.Equal(t, at.Add(time.Minute), starts.Since("n7"), "the deadline is kept")
	require.Equal(t, "n7", w.HeldHuman().ID)
	require.Nil(t, w.HeldHuman(), "the held node is taken once")
	w.TakeHeldHuman()
	require.True(t, run.dropped)
}

// A run that carried nothing expects nothing, and has no held node.
func TestAFreshGenerationExpectsNothing(t *testing.T) {
	run, people, starts, l := newFakes()
	w := New[step](run, people, starts, l)
	w.ExpectCarried()
	require.Empty(t, people.approvals)
	require.Nil(t, w.HeldHuman())
	w.TakeHeldHuman()
	require.False(t, run.dropped)
}

// A wait an edit or a person's handoff ends says which.
func TestWhatInterruptedAWait(t *testing.T) {
	for cause, want := range map[life.Cause]string{
		life.Edit:    "a person edited the run while it waited",
		life.Handoff: "a person handed the run over while it waited",
	} {
		run, people, starts, l := newFakes()
		require.NoError(t, l.Interrupt(cause))
		require.Equal(t, want, New[step](run, people, starts, l).InterruptedWhile())
	}
}

// The carried nodes are taken up in order, whatever the map's.
func TestCarriedNodesAreInOrder(t *testing.T) {
	c := Carried{Since: map[string]time.Time{"n9": {}, "n10": {}, "n3": {}}}
	require.Equal(t, []string{"n10", "n3", "n9"}, c.waitingNodes())
}
