package chat

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// fakeRun is a run's trace and the effects the conversation asked for.
type fakeRun struct {
	nodes              []Node
	archived, ended    bool
	handedOver         bool
	recorded           []string // node:text
	cutShort, rolledAt []string
	asked              []string // gates asked
	gate               workflow.Version
}

func (f *fakeRun) Len() int         { return len(f.nodes) }
func (f *fakeRun) At(i int) Node    { return f.nodes[i] }
func (f *fakeRun) Archived() bool   { return f.archived }
func (f *fakeRun) Ended() bool      { return f.ended }
func (f *fakeRun) HandedOver() bool { return f.handedOver }
func (f *fakeRun) Index(id string) int {
	for i, n := range f.nodes {
		if n.ID == id {
			return i
		}
	}
	return -1
}
func (f *fakeRun) Record(_ workflow.Context, node string, m signals.MessageRequest) {
	f.recorded = append(f.recorded, node+":"+m.Text)
}
func (f *fakeRun) CutShort(_ workflow.Context, id, why string) {
	f.cutShort = append(f.cutShort, id+": "+why)
}
func (f *fakeRun) RollBack(_ workflow.Context, i int) { f.rolledAt = append(f.rolledAt, f.nodes[i].ID) }

func (f *fakeRun) version(_ workflow.Context, id string, _ workflow.Version) workflow.Version {
	f.asked = append(f.asked, id)
	return f.gate
}

func over(f *fakeRun, s *State, a *config.Agent) *Conversation {
	return New(Parts{State: s, Agent: a, Run: f, Version: f.version, Gates: Gates{TurnEdit: "turn-edit", CutInLedger: "cut-in-ledger"}})
}

func talking(doubleText string) *config.Agent {
	return &config.Agent{Name: "travel", Conversation: &config.Conversation{}, DoubleText: doubleText}
}

func message(id, parent, text string, step int) Node {
	return Node{ID: id, Kind: signals.KindTask, Status: signals.StatusCompleted, Parents: []string{parent}, Args: json.RawMessage(`{"message":"` + text + `","by":"u"}`), Step: step}
}

// The carried state keeps its JSON: histories and running workflows
// decode it as before.
func TestStateKeepsItsJSON(t *testing.T) {
	s := State{Inbox: []signals.MessageRequest{{Text: "hi", Audit: signals.Audit{By: "u"}}}, LastOutput: json.RawMessage(`"ok"`), Since: 3, Waiting: "n9", Began: "n5"}
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.JSONEq(t, `{"inbox":[{"text":"hi","by":"u"}],"last_output":"ok","since":3,"waiting":"n9","began":"n5"}`, string(b))
	b, err = json.Marshal(State{})
	require.NoError(t, err)
	require.Equal(t, `{}`, string(b))
}

// Why a message is refused, in the order the refusals are asked.
func TestWantedRefusesWhatTheRunCannotTake(t *testing.T) {
	f := &fakeRun{}
	s := &State{}
	require.ErrorContains(t, over(f, s, &config.Agent{Name: "travel"}).Wanted(), "agent travel is not a conversation")
	f.handedOver = true
	require.ErrorContains(t, over(f, s, &config.Agent{Name: "orders"}).Wanted(), "handed to agent orders, which is not a conversation")
	f.handedOver = false

	c := over(f, s, talking(config.DoubleTextReject))
	require.ErrorContains(t, c.Wanted(), "double_text is reject", "a reject conversation at work")
	s.Waiting = "n3"
	require.NoError(t, c.Wanted(), "a reject conversation waiting for the message")
	f.ended = true
	require.ErrorContains(t, c.Wanted(), "the conversation has ended")
	f.ended = false

	c = over(f, s, talking(config.DoubleTextEnqueue))
	for i := range MaxInbox {
		res, err := c.Accept(signals.MessageRequest{Text: "m"})
		require.NoError(t, err)
		require.Equal(t, i+1, res.Queued)
	}
	_, err := c.Accept(signals.MessageRequest{Text: "one too many"})
	require.ErrorContains(t, err, "32 messages already wait")
	require.Len(t, s.Inbox, MaxInbox, "a refused message does not wait")
}

// Only interrupt and rollback cut a request short, and only with a
// message waiting.
func TestCutsInByDoubleText(t *testing.T) {
	for dt, cuts := range map[string]bool{
		config.DoubleTextEnqueue: false, config.DoubleTextReject: false, "": false,
		config.DoubleTextInterrupt: true, config.DoubleTextRollback: true,
	} {
		s := &State{}
		c := over(&fakeRun{}, s, talking(dt))
		require.False(t, c.CutsIn(), "%q with no message waiting", dt)
		s.Inbox = []signals.MessageRequest{{Text: "m"}}
		require.Equal(t, cuts, c.CutsIn(), dt)
	}
	s := &State{Inbox: []signals.MessageRequest{{Text: "m"}}}
	require.False(t, over(&fakeRun{}, s, &config.Agent{DoubleText: config.DoubleTextInterrupt}).CutsIn(), "not a conversation")
}

// Messages are taken oldest first, each recorded where the run says.
func TestTakeRecordsTheOldestFirst(t *testing.T) {
	f := &fakeRun{}
	s := &State{Inbox: []signals.MessageRequest{{Text: "a"}, {Text: "b"}, {Text: "c"}}}
	c := over(f, s, talking(""))
	c.Take(nil, "n7")
	require.Equal(t, []string{"n7:a"}, f.recorded)
	c.TakeQueued(nil)
	require.Equal(t, []string{"n7:a", ":b", ":c"}, f.recorded)
	require.False(t, c.Queued())
}

// A cut-in marks the request; rollback goes back to the turn's start:
// its message, or the run's task in the first turn.
func TestCutInRollsBackToTheTurnsStart(t *testing.T) {
	f := &fakeRun{nodes: []Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted},
		{ID: "n2", Kind: signals.KindOutput, Status: signals.StatusCompleted},
		message("n3", "n2", "again", 2),
		{ID: "n4", Kind: signals.KindRequest},
	}}
	s := &State{}
	c := over(f, s, talking(config.DoubleTextRollback))
	require.ErrorIs(t, c.CutIn(nil, "n4"), ErrCutIn)
	require.Equal(t, []string{"n4: " + CutInText + " (double_text: rollback)"}, f.cutShort)
	require.Equal(t, []string{"n1"}, f.rolledAt, "the first turn starts at the run's task")
	c.Begin(2, "n3")
	require.Equal(t, State{Since: 2, Began: "n3"}, *s)
	_ = c.CutIn(nil, "n4")
	require.Equal(t, []string{"n1", "n3"}, f.rolledAt, "a later turn starts at its message")

	f = &fakeRun{nodes: f.nodes}
	_ = over(f, s, talking(config.DoubleTextInterrupt)).CutIn(nil, "n4")
	require.Len(t, f.cutShort, 1)
	require.Empty(t, f.rolledAt, "interrupt keeps what the turn did")
}

// The ledger reads the writes between the turn's start and the last
// request a message cut short; the gate is asked only once one is found.
func TestCutInWriteAsksItsGateOnlyForAWriteFound(t *testing.T) {
	f := &fakeRun{gate: 1, nodes: []Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted},
		{ID: "n2", Kind: signals.KindCall, Status: signals.StatusCompleted},
		{ID: "n3", Kind: signals.KindRequest, Status: signals.StatusFailed, CutIn: true},
		{ID: "n4", Kind: signals.KindRequest, Status: signals.StatusFailed},
	}}
	c := over(f, &State{}, talking(config.DoubleTextInterrupt))
	var from, to int
	found := func(ok bool) func(int, int) bool {
		return func(a, b int) bool { from, to = a, b; return ok }
	}
	require.False(t, c.CutInWrite(nil, found(false)))
	require.Equal(t, []int{1, 2}, []int{from, to})
	require.Empty(t, f.asked, "no write found: no gate")
	require.True(t, c.CutInWrite(nil, found(true)))
	require.Equal(t, []string{"cut-in-ledger"}, f.asked)
	f.gate = workflow.DefaultVersion
	require.False(t, c.CutInWrite(nil, found(true)), "a run recorded before the ledger read cut-in writes")

	f.nodes[2].CutIn = false
	require.False(t, c.CutInWrite(nil, func(int, int) bool { panic("no request was cut short") }))
	require.False(t, over(f, &State{}, &config.Agent{}).CutInWrite(nil, found(true)), "not a conversation")
}

// An edit makes the edited node's turn the one under way; a fork leaves
// its source's messages behind; the gate is asked only when that changes
// the turn.
func TestEditedMakesTheNodesTurnCurrent(t *testing.T) {
	f := &fakeRun{gate: 1, nodes: []Node{
		{ID: "n1", Kind: signals.KindTask, Status: signals.StatusCompleted},
		{ID: "n2", Kind: signals.KindOutput, Status: signals.StatusCompleted},
		message("n3", "n2", "second", 2),
		{ID: "n4", Kind: signals.KindCall, Status: signals.StatusCompleted},
		{ID: "n5", Kind: signals.KindOutput, Status: signals.StatusCompleted},
		message("n6", "n5", "third", 5),
		{ID: "n7", Kind: signals.KindCall, Status: signals.StatusCompleted},
	}}
	s := &State{Began: "n6", Since: 5, Inbox: []signals.MessageRequest{{Text: "x"}}}
	c := over(f, s, talking(""))
	c.Edited(nil, "n7", false)
	require.Empty(t, f.asked, "the edited node's turn is under way")
	c.Edited(nil, "n4", false)
	require.Equal(t, []string{"turn-edit"}, f.asked)
	require.Equal(t, State{Began: "n3", Since: 2, Inbox: []signals.MessageRequest{{Text: "x"}}}, *s)

	c.Edited(nil, "n1", true)
	require.Equal(t, State{}, *s, "the first turn, and a fork takes none of its source's messages")

	s2 := &State{Began: "n6", Since: 5}
	f.gate = workflow.DefaultVersion
	over(f, s2, talking("")).Edited(nil, "n4", false)
	require.Equal(t, State{Began: "n6", Since: 5}, *s2, "a run recorded before kept its turn")

	began, since, known := TurnOf(f, 6)
	require.Equal(t, []any{"n6", 5, true}, []any{began, since, known})
	began, _, known = TurnOf(f, 1)
	require.Equal(t, []any{"", true}, []any{began, known}, "the run's task began the first turn")
	f.archived = true
	_, _, known = TurnOf(f, 1)
	require.False(t, known, "the message may be in the archived part")

	// A message taken mid-turn (after a step, not an answer) begins no turn.
	f.nodes[5].Parents = []string{"n4"}
	began, _, _ = TurnOf(f, 6)
	require.Equal(t, "n3", began)
}
