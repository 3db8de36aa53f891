package testsuite

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A message's "by" is who sent it, at most 256 bytes, in both run shapes
// on the worker binary and the real server: over it, the update is
// refused naming the field and the bound, and the signal is recorded and
// ignored (gate bounded-audit); the next message is answered.
func TestParityOfAMessageWhoseByIsOverItsBound(t *testing.T) {
	t.Parallel()
	var cells []parityCell
	for _, shape := range []string{freeForm, graph} {
		cells = append(cells, parityCell{capability: "a message whose by is over its bound", shape: shape, run: func(t *testing.T) { byOverItsBound(t, shape) }})
	}
	runParity(t, cells)
}

func byOverItsBound(t *testing.T, shape string) {
	s := newBinaryStack(t, conversationParityConfig, map[string]scriptedmodel.Script{"parity": heard})
	run := s.start(workflows.AgentInput{Agent: shape + "-chatter", Task: "hello"})
	awaitOutputs(t, s, run, 1)
	awaitPhase(t, s, run, signals.PhaseAwaitingUser)

	long := strings.Repeat("b", 1<<10)
	err := s.updateInto(run, signals.Message, signals.MessageRequest{Text: "Paris", Audit: signals.Audit{By: long}}, nil)
	require.ErrorContains(t, err, `message: "by" is 1024 bytes, over the 256 bytes it may hold`)
	ctx := context.Background()
	require.NoError(t, s.client.SignalWorkflow(ctx, run.GetID(), "", signals.Message, map[string]string{"text": "Paris", "by": long}))
	require.NoError(t, s.client.SignalWorkflow(ctx, run.GetID(), "", signals.Message, map[string]string{"text": "Rome", "by": "ana"}))

	got, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"heard": "Rome", "turns": 2}`, string(got.Output), "the message over the bound is not taken")
	var ignored []string
	for _, n := range nodesOf(s.trace(run), signals.KindHuman) {
		if n.Status == signals.StatusSkipped {
			ignored = append(ignored, n.Error)
		}
	}
	require.Len(t, ignored, 1)
	require.Contains(t, ignored[0], `ignored message signal: message: "by" is 1024 bytes, over the 256 bytes it may hold`)
	recordAndReplay(t, run, "conversation_by_over_bound_"+strings.ReplaceAll(shape, "-", "_"))
}
