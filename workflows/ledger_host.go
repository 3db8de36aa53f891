package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/workflows/ledger"
)

// ledger is the run's effect ledger (workflows/ledger): which write
// already ran, read from the run's trace as it is now.
func (r *runner) ledger() *ledger.Ledger { return ledger.New(ledgerHost{r}) }

// ledgerHost is what the effect ledger asks of the run.
type ledgerHost struct{ r *runner }

var _ ledger.Host = ledgerHost{}

func (h ledgerHost) Len() int             { return len(h.r.run.Nodes) }
func (h ledgerHost) At(i int) *Node       { return &h.r.run.Nodes[i] }
func (h ledgerHost) Node(id string) *Node { return h.r.run.node(id) }

func (h ledgerHost) Latest(ctx workflow.Context) bool {
	return versionOf(ctx, versionLedgerLatest, 1) != workflow.DefaultVersion
}

func (h ledgerHost) CutInWrite(ctx workflow.Context, found func(from, to int) bool) bool {
	return h.r.chat().CutInWrite(ctx, found)
}
