package workflows

import (
	"strings"

	"github.com/unstuck-dev/unstuck/workflows/chat"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// notRunText is what a node says that the run's life stopped (a message
// that cut in says more: turn.go).
func notRunText(why life.NotRun) string {
	switch why {
	case life.Interrupted:
		return interruptedText
	case life.HandedOver:
		return handedOverText
	case life.NeverRan:
		return neverRanText
	case life.CutIn:
		return chat.CutInText
	}
	return ""
}

// loadNotRun gives the nodes of a run as it is loaded (carried across
// continue-as-new, or read to fork) why each did not run, from the words
// the trace says it in: Node.NotRun is not carried (the carried state and
// the run query keep their shape, and runs of earlier versions never had
// it), so this is the one place that reads it from a node's error text.
func loadNotRun(run *Run) {
	for i := range run.Nodes {
		n := &run.Nodes[i]
		switch {
		case n.Error == interruptedText:
			n.NotRun = life.Interrupted
		case n.Error == handedOverText:
			n.NotRun = life.HandedOver
		case n.Error == neverRanText:
			n.NotRun = life.NeverRan
		case strings.HasPrefix(n.Error, chat.CutInText):
			n.NotRun = life.CutIn
		}
	}
}
