package testsuite

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"golang.org/x/net/html"

	"github.com/unstuck-dev/unstuck/console"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A long run carries only the newest part of its trace into each
// generation; the older nodes stay in the closed generation that held
// them, and the whole trace is still read through the client, page by
// page and generation by generation. A fork from an archived node names
// that generation's run id.
func TestALongRunArchivesItsOldestNodesAndStillShowsThemAll(t *testing.T) {
	t.Parallel()
	const turns = 130
	cfg := `
model: { base_url: "{{MODEL}}", name: counter }
tools:
  - { name: echo, builtin: echo, parameters: { type: object } }
agents:
  - { name: counter, instructions: Count., tools: [echo], policies: { max_steps: 200 } }
`
	pad := strings.Repeat("x", 2<<10)
	// The model counts from its last result, not from the conversation's
	// length: a long run's conversation no longer holds every step.
	counter := func(req openaiRequest) scriptedmodel.Turn {
		if i := scriptedmodel.NextStep(req); i < turns {
			return scriptedmodel.CallTurn("echo", map[string]any{"i": i, "pad": pad})
		}
		return scriptedmodel.CallTurn("final_output", map[string]any{"turns": turns})
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"counter": counter})
	run := s.start(workflows.AgentInput{Agent: "counter", Task: "count"})
	firstRunID := run.GetRunID()
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"turns": %d}`, turns), string(res.Output))
	require.GreaterOrEqual(t, res.Generation, 3)

	latest := s.client.GetWorkflow(context.Background(), run.GetID(), "")
	tr := s.trace(latest)
	require.NotNil(t, tr.Archived, "over %d KiB of trace: the oldest part is archived", 512)
	require.Equal(t, "n1", tr.Nodes[0].ID, "the task stays")
	require.NotEqual(t, "n2", tr.Nodes[1].ID)

	// Every node, read through the closed generations that hold them.
	whole, err := runmsg.ReadWholeTrace(context.Background(), run.GetID(), "", func(wid, rid string) runmsg.TraceQuery {
		return func(ctx context.Context, out *signals.Trace, args ...any) error {
			v, err := s.client.QueryWorkflow(ctx, wid, rid, signals.QueryTrace, args...)
			if err != nil {
				return err
			}
			return v.Get(out)
		}
	})
	require.NoError(t, err)
	for i, n := range whole.Nodes {
		require.Equal(t, fmt.Sprintf("n%d", i+1), n.ID, "the whole trace, in order, each node once")
	}
	require.Len(t, nodesOf(whole, signals.KindRequest), turns+1)

	// The console's run page shows the whole trace too, archived nodes
	// marked, and offers no edit of them.
	h, err := console.New(serverClient, console.Options{Namespace: "default"})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	page := fetch(t, srv.URL+"/runs/"+url.PathEscape(run.GetID()))
	shown, marked := 0, 0
	for _, n := range findElements(page, func(n *html.Node) bool { return n.Data == "g" && attrOf(n, "data-node-id") != "" }) {
		shown++
		if attrOf(n, "data-archived") == "true" {
			marked++
		}
	}
	archived := 0
	for _, n := range whole.Nodes {
		if n.Archived {
			archived++
		}
	}
	require.Equal(t, len(whole.Nodes), shown, "every node of every generation")
	require.Positive(t, archived)
	require.Equal(t, archived, marked, "the archived nodes are marked")
	require.Nil(t, findElement(page, func(n *html.Node) bool { return n.Data == "option" && attrOf(n, "value") == "n2" }), "an archived node is not offered for edit")

	// Each generation carried a bounded state.
	maxCarried, generations, archiving := 0, 0, ""
	for rid := firstRunID; rid != ""; generations++ {
		archiving = rid
		last := lastEvent(t, s, run.GetID(), rid)
		if last.GetEventType() != enums.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW {
			break
		}
		attrs := last.GetWorkflowExecutionContinuedAsNewEventAttributes()
		size := 0
		for _, p := range attrs.GetInput().GetPayloads() {
			size += len(p.GetData())
		}
		maxCarried = max(maxCarried, size)
		if attrs.GetNewExecutionRunId() == latestRunID(t, s, run.GetID()) {
			break
		}
		rid = attrs.GetNewExecutionRunId()
	}
	require.Equal(t, res.Generation, generations+1)
	require.Less(t, maxCarried, 256<<10, "the carried state stays bounded")
	t.Logf("%d generations, %d nodes (%d archived), carried at most %d KiB", generations+1, len(whole.Nodes), tr.Archived.Nodes, maxCarried>>10)

	// A fork from an archived call, at the generation that holds it.
	var at string
	for _, n := range whole.Nodes {
		if n.Kind == signals.KindCall && nodeNum(n.ID) <= nodeNum(tr.Archived.Through) {
			at = n.ID
		}
	}
	// Named by the run id that holds it, or in the contract's form alone,
	// {workflow_id, node_id}: the run knows which generation holds it.
	for _, runID := range []string{tr.Archived.RunID, ""} {
		fork := s.start(workflows.AgentInput{From: &workflows.ForkFrom{WorkflowID: run.GetID(), RunID: runID, NodeID: at}})
		forked, err := s.result(fork)
		require.NoError(t, err, "a fork of archived node %s (run id %q)", at, runID)
		require.JSONEq(t, fmt.Sprintf(`{"turns": %d}`, turns), string(forked.Output))
		edits := nodesOf(s.trace(fork), signals.KindEdit)
		require.Len(t, edits, 1)
		require.Contains(t, string(edits[0].Output), fmt.Sprintf(`"forked_from":{"node_id":%q,"workflow_id":%q}`, at, run.GetID()))
		if runID == "" {
			recordAndReplay(t, fork, "fork_of_archived_node")
		}
	}

	// The generation that archived (marker archive-trace), and one that
	// started from an archived run.
	recordAndReplay(t, s.client.GetWorkflow(context.Background(), run.GetID(), archiving), "archived_trace_continued")
	recordAndReplay(t, latest, "archived_trace_last_generation")
}

func nodeNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "n"))
	return n
}

// lastEvent is the event that closed a run.
func lastEvent(t *testing.T, s *stack, workflowID, runID string) *historypb.HistoryEvent {
	t.Helper()
	iter := s.client.GetWorkflowHistory(context.Background(), workflowID, runID, false, enums.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	var last *historypb.HistoryEvent
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		last = ev
	}
	require.NotNil(t, last)
	return last
}

func latestRunID(t *testing.T, s *stack, workflowID string) string {
	t.Helper()
	desc, err := s.client.DescribeWorkflowExecution(context.Background(), workflowID, "")
	require.NoError(t, err)
	return desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
}
