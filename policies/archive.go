package policies

// A long run cannot carry its whole trace across continue-as-new: the
// carried state, and the workflow-thread work of encoding it, would grow
// with the run until a payload limit or the deadlock detector stops it.
// So the trace's oldest part is archived: left in the history of the
// generation that made it (its queries still answer it) and no longer
// carried. ArchiveCut decides what stays.

// ArchiveNode is what ArchiveCut weighs of one trace node, in trace order.
type ArchiveNode struct {
	// Size is about what the node weighs as JSON.
	Size int
	// Pinned nodes stay wherever they are (the task, handoffs, writes the
	// effect ledger may answer for): the run reads them again.
	Pinned bool
	// Live nodes are still in use (the frontier, the loop window's events,
	// a call not settled): they and everything after them stay.
	Live bool
	// Boundary: the kept part may begin here (a step's first node), so a
	// tool result is never kept without the model reply that asked for it.
	Boundary bool
	// Dead nodes are no longer read (invalidated by an edit or rollback):
	// archived wherever they are, once the trace is archived at all.
	Dead bool
	// Leads: a conversation's message, which stays while any node it led
	// (those after it, up to the next that leads) stays: what was asked
	// is read with its answer.
	Leads bool
}

// ArchiveCut answers which nodes to keep: the newest ones that are not
// dead, from a boundary, weighing at most keepBytes (more when a live node
// comes earlier), every pinned node, and the node that led each kept one.
// It keeps everything when the nodes weigh no more than archiveAbove.
func ArchiveCut(nodes []ArchiveNode, archiveAbove, keepBytes int) []bool {
	keep := make([]bool, len(nodes))
	total := 0
	for _, n := range nodes {
		total += n.Size
	}
	if total <= archiveAbove {
		for i := range keep {
			keep[i] = true
		}
		return keep
	}
	cut := newestWithin(nodes, keepBytes)
	for i, n := range nodes[:cut] {
		if n.Live {
			cut = i
			break
		}
	}
	for cut > 0 && !nodes[cut].Boundary {
		cut--
	}
	for i, n := range nodes {
		keep[i] = n.Pinned || n.Live || (i >= cut && !n.Dead)
	}
	led := false
	for i := len(nodes) - 1; i >= 0; i-- {
		switch {
		case nodes[i].Leads:
			keep[i] = keep[i] || led
			led = false
		case keep[i] && !nodes[i].Dead:
			led = true
		}
	}
	return keep
}

// newestWithin is the index where the newest nodes that are not dead,
// weighing at most budget, begin (at least the last node is kept).
func newestWithin(nodes []ArchiveNode, budget int) int {
	if len(nodes) == 0 {
		return 0
	}
	sum := 0
	for i := len(nodes) - 1; i >= 0; i-- {
		if nodes[i].Dead {
			continue
		}
		sum += nodes[i].Size
		if sum > budget {
			return min(i+1, len(nodes)-1)
		}
	}
	return 0
}
