package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// longRunSteps is how many steps of padded results the long run makes
// before Temporal (here, the test) suggests continue-as-new: about 800 KiB
// of trace, over archiveAbove.
const longRunSteps = 300

// longRun runs steps of one call each, every result padded and
// written to state.last (and the first to state.first), until the
// server suggests continue-as-new, and answers the input the run
// continued with. Each result carries 2 KiB.
func longRun(t *testing.T, before ...string) (*harness, AgentInput) {
	t.Helper()
	var replies []activities.ModelReply
	for i := range longRunSteps + 1 {
		path := "†state.last"
		if i == 0 {
			path = "†state.first"
		}
		replies = append(replies, activities.ModelReply{ToolCalls: []activities.ToolCall{
			call(fmt.Sprintf("k%d", i), "a", fmt.Sprintf(`{"i": %d, "_outputPath": %q}`, i, path)),
		}})
	}
	var calls atomic.Int32
	var h *harness
	pad := strings.Repeat("x", 2<<10)
	spec := echoSpec()
	spec.Agent.Policies.MaxSteps = 2 * longRunSteps
	h = newHarness(t, spec, replies, func(req activities.ToolRequest) (json.RawMessage, error) {
		if calls.Add(1) == longRunSteps {
			h.env.SetContinueAsNewSuggested(true)
		}
		var args map[string]any
		_ = json.Unmarshal(req.Args, &args)
		return mustJSON(map[string]any{"i": args["i"], "pad": pad}), nil
	})
	h.before(before...)
	h.env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: "agent", Task: "count"})
	return h, continuedInput(t, h)
}

func TestALongRunCarriesOnlyItsNewestNodes(t *testing.T) {
	h, next := longRun(t)
	run := next.Continued
	a := run.Archived
	require.NotNil(t, a, "the trace is over %d KiB: its oldest part is archived", archiveAbove>>10)
	require.Equal(t, "n1", run.Nodes[0].ID, "the task stays")
	require.Equal(t, signals.KindRequest, run.Nodes[1].Kind, "the kept part begins with a step")
	require.Equal(t, 1+2*longRunSteps, a.Nodes+len(run.Nodes), "every node is kept or archived")
	require.Less(t, len(gzipped(mustJSON(run))), maxCarriedGzip, "the carried run is bounded")
	require.NotNil(t, run.node(run.Events[0].NodeID), "the loop window's nodes stay (a rollback goes back to them)")
	require.Equal(t, run.Step, longRunSteps)
	require.NotEmpty(t, a.RunID)

	// The generation that archived answers every node it held.
	tr := h.trace()
	require.Equal(t, 1+2*longRunSteps, len(tr.Nodes))
	require.Nil(t, tr.Archived)

	// An edit rebuilds State from the archived writes and the kept ones.
	r := &runner{run: run}
	require.Equal(t, mustJSON(run.State), mustJSON(r.edit().RebuiltState()))
	require.Contains(t, string(mustJSON(a.StateBase["first"])), `"i":0`, "the first call's write is archived")

	// The model reads the task, a note where the archived steps were, and
	// the newest steps whole: no tool result without the reply that asked.
	conv := buildConversation(run)
	require.Equal(t, "user", conv[1].Role)
	require.Contains(t, conv[2].Content, fmt.Sprintf("its %d oldest trace nodes (through node %s) are archived", a.Nodes, a.Through))
	require.Equal(t, "assistant", conv[3].Role)
	requireAskedFirst(t, conv)
	require.Zero(t, run.SentMessages, "the model activity is sent the conversation whole")
}

func TestANextGenerationOfALongRunNamesItsArchive(t *testing.T) {
	_, next := longRun(t)
	a := next.Continued.Archived
	h := newHarness(t, echoSpec(), []activities.ModelReply{{Content: "done"}}, echoTool)
	res, err := h.run(next)
	require.NoError(t, err)
	require.Equal(t, 1, res.Generation)
	tr := h.trace()
	require.Equal(t, &signals.ArchivedNodes{Nodes: a.Nodes, Through: a.Through, Last: a.Last, WorkflowID: a.WorkflowID, RunID: a.RunID, Generation: 0}, tr.Archived)

	// Paging from an archived node answers what the run holds after it.
	run := next.Continued
	page, err := tracePage(run, &signals.TracePage{Since: "n2"})
	require.NoError(t, err)
	require.Equal(t, run.Nodes[1].ID, page.Nodes[0].ID)
	_, err = tracePage(run, &signals.TracePage{Since: "n99999"})
	require.ErrorContains(t, err, "names no node of this run")

	// An edit at or before the archived part is refused with the fork
	// that can make it.
	r := &runner{run: run}
	for _, id := range []string{"n1", "n3", a.Through} {
		err := r.edit().Wanted(signals.EditRequest{NodeID: id, Output: json.RawMessage(`"x"`)})
		require.ErrorContains(t, err, "archived part of this long run")
		require.ErrorContains(t, err, fmt.Sprintf(`"run_id": %q, "node_id": %q`, a.RunID, id))
	}
}

func TestALongRunOfAnEarlierVersionCarriesItsWholeTrace(t *testing.T) {
	_, next := longRun(t, versionArchiveTrace)
	require.Nil(t, next.Continued.Archived)
	require.Equal(t, 1+2*longRunSteps, len(next.Continued.Nodes))
}

// Archiving keeps what the archived nodes cost: with what the kept ones
// cost, the run's whole spend, which a fork from its last node counts.
func TestALongRunsArchiveKeepsItsSpend(t *testing.T) {
	_, next := longRun(t)
	run := next.Continued
	require.NotEmpty(t, run.Archived.Spent)
	kept := forkSpending(run, true)
	require.Equal(t, run.Spend, kept.Spend)
	require.Equal(t, run.SpendBy, kept.SpendBy)
	require.Less(t, forkSpending(run, false).Spend.ModelRequests, run.Spend.ModelRequests, "the nodes carried alone miss the archived ones")

}

// A fork of a long run starts with the spend of everything it keeps,
// archived or carried; a fork of an earlier version, of the nodes carried.
func TestAForkOfALongRunCountsItsArchivedSpend(t *testing.T) {
	_, next := longRun(t)
	src := next.Continued
	last := src.Nodes[len(src.Nodes)-1]
	// An invalidated node the source archived after the fork's node is
	// not the fork's.
	src.Archived.Last = fmt.Sprintf("n%d", nodeNumber(last.ID)+5)
	src.Archived.SpentAfter = []NodeSpend{{ID: src.Archived.Last, Agent: "agent", Spent: policies.Spend{ModelRequests: 1000}}}
	packed, err := packRun(src)
	require.NoError(t, err)
	for _, earlier := range []bool{false, true} {
		spec := echoSpec()
		spec.Agent.Policies.MaxSteps = 2 * longRunSteps
		fork := newHarness(t, spec, []activities.ModelReply{{Content: "done"}}, echoTool)
		if earlier {
			fork.before(versionForkArchivedSpend)
		}
		fork.env.OnActivity(acts.ReadRun, mock.Anything, "long").Return(packed, nil)
		res, err := fork.run(AgentInput{From: &ForkFrom{WorkflowID: "long", NodeID: last.ID}})
		require.NoError(t, err)
		want := src.Spend.ModelRequests + 1 // and the fork's own request
		if earlier {
			want -= src.Archived.Spent["agent"].ModelRequests
		}
		require.Equal(t, want, res.Spend.ModelRequests, "earlier version: %v", earlier)
	}
}

// requireAskedFirst: each tool message of conv follows the reply that
// asked for its call.
func requireAskedFirst(t *testing.T, conv []activities.Message) {
	t.Helper()
	asked := map[string]bool{}
	for _, m := range conv {
		for _, tc := range m.ToolCalls {
			asked[tc.ID] = true
		}
		if m.Role == "tool" {
			require.True(t, asked[m.ToolCallID], "tool message %s follows the reply that asked for it", m.ToolCallID)
		}
	}
}
