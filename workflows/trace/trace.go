package trace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
)

// Trace is the trace graph: every node so far, and where the next model
// request follows from. Its fields are exported for the run's JSON; only
// this package changes them.
type Trace struct {
	Nodes  []Node `json:"nodes"`
	NextID int    `json:"next_id"` // node ids keep counting across continue-as-new
	// Frontier are the nodes the next model request follows from.
	Frontier []string `json:"frontier"`
	// Settles counts the calls that completed, in order (Node.Settled):
	// an edit rebuilds State from their writes in that order.
	Settles int `json:"settles,omitempty"`
	// Archived: the trace's oldest part is no longer carried
	// (workflows/archive.go); it says where it is.
	Archived *Archive `json:"archived,omitempty"`
}

// Archive says where the trace's archived part is: the nodes through
// Through, and invalidated nodes up to Last, are in run RunID of workflow
// WorkflowID (a generation of this run, or the run a fork started from),
// whose own Archive points further back.
type Archive struct {
	Nodes      int    `json:"nodes"` // archived so far, in all
	Through    string `json:"through,omitempty"`
	Last       string `json:"last"`
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
	Generation int    `json:"generation"`
	// StateBase is State as the archived calls wrote it: an edit rebuilds
	// State from it and the kept calls' writes.
	StateBase refs.State `json:"state_base,omitempty"`
	// Spent is what the archived nodes through Through cost, by the agent
	// that spent it, and SpentAfter what each archived node after it (an
	// invalidated one) cost: a fork keeps the first, and of the second
	// what came before its node.
	Spent      map[string]*policies.Spend `json:"spent,omitempty"`
	SpentAfter []NodeSpend                `json:"spent_after,omitempty"`
}

// NodeSpend is what one archived node cost.
type NodeSpend struct {
	ID    string         `json:"id"`
	Agent string         `json:"agent"`
	Spent policies.Spend `json:"spent"`
}

// newID hands out ids that stay unique across continue-as-new because
// the counter is part of the run.
func (t *Trace) newID() string {
	t.NextID++
	return fmt.Sprintf("n%d", t.NextID)
}

// Number is the counter in a node id ("n42": 42), 0 for none: ids grow
// in the order nodes were made.
func Number(id string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "n"))
	if err != nil || !strings.HasPrefix(id, "n") {
		return 0
	}
	return n
}
