package ledger

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// Host is what the ledger asks of the run it reads.
type Host interface {
	// Len is how many nodes the run's trace holds; At is node i of them,
	// oldest first; Node is the node of id (nil: none).
	Len() int
	At(i int) *trace.Node
	Node(id string) *trace.Node
	// Latest says whether the run answers a write only with the latest
	// call that ran it or answered for it (gate ledger-latest); asked only
	// when the two answers differ.
	Latest(ctx workflow.Context) bool
	// CutInWrite says whether the conversation's turn under way ran the
	// write before a message cut it short: found says whether the calls
	// at from..to ran it (chat.Conversation.CutInWrite).
	CutInWrite(ctx workflow.Context, found func(from, to int) bool) bool
}
