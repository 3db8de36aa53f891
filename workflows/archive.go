package workflows

import (
	"fmt"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// A long run does not carry its whole trace into the next generation
// (version archive-trace): once the trace weighs over archiveAbove, its
// oldest part stays in the generation that holds it (the trace and run
// queries of that closed run still answer it, replayed by a worker) and
// the carried run keeps the newest archiveKeep bytes of nodes, plus the
// nodes it reads again (policies.ArchiveCut). The carried state, and the
// work of encoding it on the workflow thread, stay bounded however long
// the run.
const (
	archiveAbove = 512 << 10
	archiveKeep  = 192 << 10
	// nodeOverhead is about what a node's fixed fields weigh as JSON.
	nodeOverhead = 256
	// maxCarriedGzip is the bound a long run's carried state keeps under,
	// compressed, with results and checkpoints of default sizes (the loop
	// window's nodes and up to edit.MaxCheckpoints checkpoints stay).
	maxCarriedGzip = 256 << 10
)

// Archive says where the trace's archived part is; NodeSpend is what one
// archived node cost (package trace's).
type (
	Archive   = trace.Archive
	NodeSpend = trace.NodeSpend
)

// forCarry is the run as continue-as-new carries it: the run itself, or a
// copy without the trace's archived part. The run is not changed: this
// generation's queries go on answering every node it held.
func (r *runner) forCarry(ctx workflow.Context) *Run {
	run := r.run
	keep := archiveCut(ctx, run)
	if !slices.Contains(keep, false) || versionOf(ctx, versionArchiveTrace, 1) < 1 {
		return run
	}
	carried := *run
	info := workflow.GetInfo(ctx)
	at := trace.Where{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID, Generation: run.Generation}
	carried.Trace = run.Trace.Carried(keep, at, r.edit().StateWritten)
	// The conversation changes (the archived part gives way to a note):
	// the model activity is sent it whole.
	carried.sendWhole()
	carried.handoffMessages = nil
	return &carried
}

// archiveCut says which nodes continue-as-new carries
// (policies.ArchiveCut). A conversation's turns that have ended go with
// their messages; a run recorded before carries every message (version
// turn-archive, asked only when the two cuts differ).
func archiveCut(ctx workflow.Context, run *Run) []bool {
	keep := policies.ArchiveCut(archiveWeights(run, false), archiveAbove, archiveKeep)
	turns := policies.ArchiveCut(archiveWeights(run, true), archiveAbove, archiveKeep)
	if slices.Equal(keep, turns) || versionOf(ctx, versionTurnArchive, 1) < 1 {
		return keep
	}
	return turns
}

// archiveWeights is what policies.ArchiveCut weighs of each node; with
// turns, the messages of a conversation's turns that have ended are not
// pinned, and each message leads its turn's nodes.
func archiveWeights(run *Run, turns bool) []policies.ArchiveNode {
	live := map[string]bool{}
	for _, id := range run.Frontier {
		live[id] = true
	}
	for _, ev := range run.Events {
		live[ev.NodeID] = true
	}
	if run.Resume != nil {
		live[run.Resume.Request] = true
	}
	out := make([]policies.ArchiveNode, len(run.Nodes))
	for i := range run.Nodes {
		n := &run.Nodes[i]
		out[i] = policies.ArchiveNode{
			Size:     nodeOverhead + len(n.Args) + len(n.Output) + len(n.Error) + len(n.Checkpoint) + len(n.RanAs),
			Pinned:   pinnedNode(n) && !(turns && endedMessage(run, n)),
			Leads:    turns && n.Kind == signals.KindTask && isMessage(n),
			Live:     live[n.ID] || !n.Status.Settled(),
			Boundary: stepBoundary(n),
			// An edit or a rollback replaced it: the run no longer reads it.
			Dead: n.Status == signals.StatusInvalidated,
		}
	}
	return out
}

// pinnedNode: the run reads the node again however old it is: the task,
// the handoffs and summaries (the conversation starts from them), and
// writes an edit or rollback invalidated after they ran (the effect ledger
// answers an identical write with their result).
func pinnedNode(n *Node) bool {
	switch n.Kind {
	case signals.KindTask, signals.KindHandoff, signals.KindSummary:
		return true
	case signals.KindCall:
		return n.Status == signals.StatusInvalidated && n.Executed
	}
	return false
}

// endedMessage: a conversation's message (or wait for one) of a turn
// that has ended: the turn under way began after it. The run does not
// read it again (the model reads the turns kept; an edit of an archived
// node is a fork of the generation that holds it, which holds its
// message too).
func endedMessage(run *Run, n *Node) bool {
	return n.Kind == signals.KindTask && isMessage(n) && run.Turn.Began != "" && nodeNumber(n.ID) < nodeNumber(run.Turn.Began)
}

// stepBoundary: the kept part of the trace may begin at the node without
// keeping a call whose model reply is archived (a tool message must follow
// the reply that asked for it). A graph's tool node is a step of its own.
func stepBoundary(n *Node) bool {
	switch n.Kind {
	case signals.KindCall:
		return n.ModelCallID == "" && n.GraphNode != ""
	case signals.KindRepair, signals.KindApproval:
		return false
	}
	return true
}

// nodeNumber is the counter in a node id ("n42": 42), 0 for none.
func nodeNumber(id string) int { return trace.Number(id) }

// isArchived says whether the node id is in the trace's archived part:
// the run's oldest part, or an invalidated node archived later.
func (run *Run) isArchived(id string) bool {
	a, num := run.Archived, nodeNumber(id)
	if a == nil || num == 0 {
		return false
	}
	return num <= nodeNumber(a.Through) || (num <= nodeNumber(a.Last) && run.node(id) == nil)
}

// firstAfterArchive is the index of the first node made after the
// archived oldest part (len(Nodes) when none), -1 when that part is empty.
func (run *Run) firstAfterArchive() int {
	if run.Archived == nil || run.Archived.Through == "" {
		return -1
	}
	return run.firstAfter(run.Archived.Through)
}

// firstAfter is the index of the first node made after node id (ids
// count up), len(Nodes) when none.
func (run *Run) firstAfter(id string) int {
	for i := range run.Nodes {
		if nodeNumber(run.Nodes[i].ID) > nodeNumber(id) {
			return i
		}
	}
	return len(run.Nodes)
}

// archivedEdit refuses an edit at or before the trace's archived part:
// what followed the node is no longer carried, so the run cannot undo
// it. A fork from the generation that holds the node can.
func archivedEdit(run *Run, id string) error {
	a := run.Archived
	return fmt.Errorf("edit: %s comes before or in the archived part of this long run (its %d oldest nodes, through %s, are no longer carried; "+
		"generation %d holds them): fork from there instead: start a run with input.from {\"workflow_id\": %q, \"run_id\": %q, \"node_id\": %q}",
		id, a.Nodes, a.Through, a.Generation, a.WorkflowID, a.RunID, id)
}
