package testsuite

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"

	"github.com/unstuck-dev/unstuck/signals"
)

// A fork with no from.edit starts at the node as it was: the node keeps
// its value and what followed it runs again (workflows/fork.go forkEdit:
// "or none (the node keeps its value; what followed runs again)";
// `unstuck fork SOURCE --node ID` sends that without an edit flag). Here
// the closed source is forked at its look-up call, at the request that
// asked for the write, and at the task: each fork places its own order
// and answers with the looked-up price, 10.
func TestForkWithoutAnEditKeepsTheNodesValue(t *testing.T) {
	t.Parallel()
	s, _, run := startShop(t)
	id := run.GetID()
	s.approveCall(id, s.awaitApproval(id, 0, "confirm").CallID)
	_, err := s.result(run)
	require.NoError(t, err)
	src := s.trace(s.latest(id))
	lookup, write := callsOf(src, "lookup")[0], callsOf(src, "place_order")[0]

	for _, at := range []struct{ name, node string }{
		{"the look-up call", lookup.ID},
		{"the request for the write", write.Parents[0]},
		{"the task", src.Nodes[0].ID},
	} {
		t.Run(at.name, func(t *testing.T) {
			fork := s.startAny(t, map[string]any{"from": map[string]any{"workflow_id": id, "node_id": at.node}})
			require.Eventually(t, func() bool {
				d, err := s.client.DescribeWorkflowExecution(context.Background(), fork.GetID(), "")
				if err == nil && d.WorkflowExecutionInfo.Status != enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
					return true
				}
				p, _ := s.phase(s.latest(fork.GetID()))
				return p == signals.PhaseAwaitingApproval
			}, 30*time.Second, 100*time.Millisecond)
			if p, _ := s.phase(s.latest(fork.GetID())); p == signals.PhaseAwaitingApproval {
				s.approveCall(fork.GetID(), s.awaitApproval(fork.GetID(), 0, "confirm").CallID)
			}
			out, err := s.result(fork)
			require.NoError(t, err)
			var o struct {
				Price any    `json:"price"`
				Order string `json:"order"`
			}
			_ = json.Unmarshal(out.Output, &o)
			require.EqualValues(t, 10, o.Price, "the fork answers with the source's price; output %s", out.Output)
			require.NotEqual(t, "O-1", o.Order, "the fork places its own order")
			ft := s.trace(s.latest(fork.GetID()))
			kept := nodeOf(t, ft, at.node)
			require.Equal(t, signals.StatusCompleted, kept.Status)
			orig := nodeOf(t, src, at.node)
			if len(orig.Output) > 0 { // a task keeps its text in args
				require.JSONEq(t, string(orig.Output), string(kept.Output), "the node keeps its output")
			}
			if len(orig.Args) > 0 { // a request has none
				require.JSONEq(t, string(orig.Args), string(kept.Args), "the node keeps its arguments")
			}
		})
	}
}
