package testsuite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/deskchain"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A chain of 30 agents, four 1 KiB calls each (issue 32): the run hands
// itself along the whole chain and completes; each handoff node keeps the
// calls since the one before and a reference to it (version handoff-flat),
// so what the handoff nodes carry grows with the calls made, not with
// handoffs x calls, and the last agent's first request still holds every
// call of the run. Before, each node held every earlier context again
// (about 22 MB after 50 handoffs, workflows.TestHandoffContextsDoNotNest).
//
// It takes about 30 s beside the other tests: 29 handoffs, each a registry
// read and a continue-as-new. A short chain would not show that the nodes
// grow with the calls, not with handoffs x calls.
func TestHandoffChainStaysSmall(t *testing.T) {
	t.Parallel()
	const desks = 30
	s := newStack(t, deskchain.Config("{{MODEL}}", desks), map[string]scriptedmodel.Script{deskchain.Model: deskchain.Script(desks - 1)})
	first := s.start(workflows.AgentInput{Agent: deskchain.Desk(0), Task: "pass it on"})
	firstRunID := first.GetRunID() // Get follows the chain and moves the run id
	run := latestRun{first}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var res workflows.AgentResult
	require.NoError(t, first.Get(ctx, &res))
	require.Len(t, res.HandoffPath, desks)
	require.Equal(t, deskchain.Answer, strings.Trim(string(res.Output), `"`))

	tr := s.trace(run)
	handoffs := nodesOf(tr, signals.KindHandoff)
	require.Len(t, handoffs, desks-1)
	total, largest := 0, 0
	for _, h := range handoffs {
		total += len(h.Output)
		largest = max(largest, len(h.Output))
		require.NotContains(t, string(h.Output), "The handoff context (JSON", "node %s nests an earlier context", h.ID)
	}
	t.Logf("%d handoffs: the handoff nodes hold %d KiB in all, the largest %d KiB; %d generations", desks-1, total>>10, largest>>10, res.Generation)
	require.Less(t, largest, 32<<10, "a node keeps the calls since the last handoff")
	require.Less(t, total, 1<<20)

	// The last desk's first request carried every note of the run.
	var lastFirst openaiRequest
	for _, req := range s.model.Requests() {
		if strings.Contains(req.Messages[0].Content, fmt.Sprintf("You are desk %d.", desks-1)) {
			lastFirst = req
			break
		}
	}
	require.NotEmpty(t, lastFirst.Messages, "the last desk was asked")
	ctxMsg := lastFirst.Messages[2].Content
	require.Contains(t, ctxMsg, "[unstuck] This task was handed over to you by agent "+deskchain.Desk(desks-2))
	require.Equal(t, 4*(desks-1), strings.Count(ctxMsg, `"tool":"note"`), "every call of the run, from all the desks before")

	// The second generation hands over with a handoff before it: the one
	// that asks handoff-flat.
	gen1 := nextRun(t, first.GetID(), firstRunID)
	recordAndReplay(t, s.client.GetWorkflow(ctx, first.GetID(), gen1), "handoff_chain_flat_gen1")
	// Refusals that share one reason are folded: the first handoff names
	// three of the 28 agents its handoffs leave out and counts the rest;
	// the last, three of the 28 already in the path.
	fold := func(h signals.Node, why string) {
		t.Helper()
		n := 0
		for _, f := range h.Refused {
			if strings.HasPrefix(f.Why, why) {
				n++
				if f.Agent == "+25 more" {
					return
				}
			}
		}
		t.Fatalf("node %s: no \"+25 more\" among %d refusals %q: %+v", h.ID, n, why, h.Refused)
	}
	fold(handoffs[0], fmt.Sprintf("not in the handoffs of %s [%s]", deskchain.Desk(0), deskchain.Desk(1)))
	fold(handoffs[len(handoffs)-1], "already in the handoff path")
	gen2 := nextRun(t, first.GetID(), gen1)
	recordAndReplay(t, s.client.GetWorkflow(ctx, first.GetID(), gen2), "handoff_chain_refusals_gen2")
	// With the handoff-loads marker (the registry read for desk003 only).
	recordAndReplay(t, s.client.GetWorkflow(ctx, first.GetID(), nextRun(t, first.GetID(), gen2)), "handoff_chain_loads_gen3")
}

// nextRun is the run that runID continued as new into.
func nextRun(t *testing.T, workflowID, runID string) string {
	t.Helper()
	iter := serverClient.GetWorkflowHistory(context.Background(), workflowID, runID, false, 0)
	next := ""
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
			next = a.GetNewExecutionRunId()
		}
	}
	require.NotEmpty(t, next, "run %s did not continue as new", runID)
	return next
}
