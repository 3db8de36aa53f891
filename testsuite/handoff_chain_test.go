package testsuite

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// chainConfig is a chain of desks desk00 -> desk01 -> ..., each of which
// makes four calls with 1 KiB of arguments, then hands the run to the
// next; the last one answers.
func chainConfig(desks int) string {
	var b strings.Builder
	b.WriteString(`
model: { base_url: "{{MODEL}}", name: chain }
tools:
  - { name: note, builtin: noop, parameters: { type: object } }
agents:
`)
	for i := range desks {
		handoffs := "[]"
		if i+1 < desks {
			handoffs = fmt.Sprintf("[desk%02d]", i+1)
		}
		fmt.Fprintf(&b, "  - { name: desk%02d, instructions: \"You are desk %d.\", tools: [note], handoffs: %s }\n", i, i, handoffs)
	}
	return b.String()
}

var deskNumber = regexp.MustCompile(`You are desk (\d+)\.`)

// chainScript is the desks' model (a test double): four notes since the
// run came to this desk, then a handoff to the next desk, or, at the last
// one (last), an answer.
func chainScript(last int) scriptedmodel.Script {
	return func(req openaiRequest) scriptedmodel.Turn {
		desk := 0
		if m := deskNumber.FindStringSubmatch(req.Messages[0].Content); m != nil {
			desk, _ = strconv.Atoi(m[1])
		}
		notes := 0
		for _, m := range req.Messages {
			switch {
			case m.Role == "user" && strings.HasPrefix(m.Content, "[unstuck] This task was handed over"):
				notes = 0
			case m.Role == "tool":
				notes++
			}
		}
		switch {
		case notes < 4:
			return scriptedmodel.CallTurn("note", map[string]any{"desk": desk, "i": notes, "note": strings.Repeat("n", 1<<10)})
		case desk < last:
			return handoffCall(fmt.Sprintf("desk%02d", desk+1), "out_of_scope", fmt.Sprintf("desk %d is done with it", desk), "go on")
		}
		return scriptedmodel.Reply("answered by the last desk")
	}
}

// A chain of 30 agents, four 1 KiB calls each (issue 32): the run hands
// itself along the whole chain and completes; each handoff node keeps the
// calls since the one before and a reference to it (version handoff-flat),
// so what the handoff nodes carry grows with the calls made, not with
// handoffs x calls, and the last agent's first request still holds every
// call of the run. Before, each node held every earlier context again
// (about 22 MB after 50 handoffs, workflows.TestHandoffContextsDoNotNest).
func TestHandoffChainStaysSmall(t *testing.T) {
	const desks = 30
	s := newStack(t, chainConfig(desks), map[string]scriptedmodel.Script{"chain": chainScript(desks - 1)})
	first := s.start(workflows.AgentInput{Agent: "desk00", Task: "pass it on"})
	firstRunID := first.GetRunID() // Get follows the chain and moves the run id
	run := latestRun{first}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var res workflows.AgentResult
	require.NoError(t, first.Get(ctx, &res))
	require.Len(t, res.HandoffPath, desks)
	require.Equal(t, "answered by the last desk", strings.Trim(string(res.Output), `"`))

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
	require.Contains(t, ctxMsg, "[unstuck] This task was handed over to you by agent desk28")
	require.Equal(t, 4*(desks-1), strings.Count(ctxMsg, `"tool":"note"`), "every call of the run, from all the desks before")

	// The second generation hands over with a handoff before it: the one
	// that asks handoff-flat.
	recordAndReplay(t, s.client.GetWorkflow(ctx, first.GetID(), nextRun(t, first.GetID(), firstRunID)), "handoff_chain_flat_gen1")
}

// nextRun is the run that runID continued as new into.
func nextRun(t *testing.T, workflowID, runID string) string {
	t.Helper()
	iter := devClient.GetWorkflowHistory(context.Background(), workflowID, runID, false, 0)
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
