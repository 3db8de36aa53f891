package chat

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// State is a conversation's state, carried with the run (workflows.Run's
// Turn). Its fields are exported for the run's JSON; only this package
// changes them.
type State struct {
	// Inbox holds the messages accepted and not in the trace yet, oldest
	// first.
	Inbox []signals.MessageRequest `json:"inbox,omitempty"`
	// LastOutput is the last turn's output: the run's result when it ends
	// idle.
	LastOutput json.RawMessage `json:"last_output,omitempty"`
	// Since is the step the turn began at: the step ceiling counts a
	// turn's steps.
	Since int `json:"since,omitempty"`
	// Waiting is the task node the run waits at for the next message (""
	// while it works).
	Waiting string `json:"waiting,omitempty"`
	// Began is the task node of the turn under way: rollback invalidates
	// what came after it.
	Began string `json:"began,omitempty"`
}

// MaxInbox bounds the messages waiting to be taken: past it, a message is
// refused (an update) or recorded and ignored (a signal).
const MaxInbox = 32

// Node is a trace node as the conversation sees it.
type Node struct {
	ID      string
	Kind    signals.NodeKind
	Status  signals.NodeStatus
	Parents []string
	Args    json.RawMessage
	Step    int
	// CutIn: a model request a message cut short (life.CutIn).
	CutIn bool
}

// Trace is what the conversation reads of the run's trace.
type Trace interface {
	// Len is the number of nodes in the trace.
	Len() int
	// At is the trace's node i.
	At(i int) Node
	// Index is node id's place in the trace (-1 when it is not there).
	Index(id string) int
	// Archived says whether the trace's older part is archived.
	Archived() bool
}

// Run is what the conversation reads of the run, and the effects on the
// run it asks for.
type Run interface {
	Trace
	// Ended says whether the run has ended (completed or stopped).
	Ended() bool
	// HandedOver says whether the run was handed to its agent now.
	HandedOver() bool
	// Record records message m, taken from the inbox, as task node node,
	// or as a new task node when node is "", and goes on from it.
	Record(ctx workflow.Context, node string, m signals.MessageRequest)
	// CutShort marks model request id as cut short by a message (why).
	CutShort(ctx workflow.Context, id, why string)
	// RollBack invalidates what the turn did after its start (node i)
	// and goes on from there.
	RollBack(ctx workflow.Context, i int)
}

// Version asks a version gate (workflows.versionOf).
type Version func(ctx workflow.Context, changeID string, max workflow.Version) workflow.Version

// Gates are the ids of the version gates the conversation asks, each
// asked where its rule decides otherwise than the one before it.
type Gates struct {
	TurnEdit, CutInLedger string
}

// Parts wire a Conversation to a run: the state it owns, the agent it
// runs, what it reads of and asks of the run, and how it asks the gates.
type Parts struct {
	State   *State
	Agent   *config.Agent
	Run     Run
	Version Version
	Gates   Gates
}

// Conversation is a run's conversation over its state as it is now.
type Conversation struct {
	s       *State
	agent   *config.Agent
	run     Run
	version Version
	gates   Gates
}

// New wires a conversation to a run.
func New(p Parts) *Conversation {
	return &Conversation{s: p.State, agent: p.Agent, run: p.Run, version: p.Version, gates: p.Gates}
}

// On says whether the run's agent is a conversation.
func (c *Conversation) On() bool { return c.agent.Conversation != nil }
