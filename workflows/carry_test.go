package workflows

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/edit"
)

func bigRun(n int, payload string) *Run {
	run := &Run{Spec: testSpec(), Trace: Trace{NextID: n}, Progress: Progress{State: map[string]any{}}}
	for i := 0; i < n; i++ {
		run.Nodes = append(run.Nodes, Node{Node: signals.Node{ID: "n", Kind: signals.KindCall, Output: mustJSON(payload)}})
	}
	return run
}

func TestSmallRunsTravelAsPlainJSON(t *testing.T) {
	var in AgentInput
	require.NoError(t, carryRun(&in, bigRun(3, "x")))
	require.NotNil(t, in.Continued)
	require.Empty(t, in.ContinuedGzip)
}

func TestLargeRunsTravelCompressedAndComeBackWhole(t *testing.T) {
	run := bigRun(400, strings.Repeat(`{"flight":"UA1","price":289}`, 200)) // ~2 MiB of JSON
	var in AgentInput
	require.NoError(t, carryRun(&in, run))
	require.Nil(t, in.Continued)
	require.NotEmpty(t, in.ContinuedGzip)
	require.Less(t, len(in.ContinuedGzip), maxCarried)
	back, err := uncarryRun(in.ContinuedGzip)
	require.NoError(t, err)
	require.Len(t, back.Nodes, 400)
	require.Equal(t, run.Nodes[399].Output, back.Nodes[399].Output)
}

func TestARunTooLargeToCarryIsRefusedWithTheReason(t *testing.T) {
	// Random-looking text does not compress.
	var b strings.Builder
	x := uint32(1)
	for b.Len() < 3<<20 {
		x = x*1664525 + 1013904223
		b.WriteByte(byte('a' + x>>24%26))
	}
	var in AgentInput
	err := carryRun(&in, bigRun(1, b.String()))
	require.ErrorContains(t, err, "over the 1536 KiB that continue-as-new can carry")
}

func TestLongToolResultsAreClippedForTheModel(t *testing.T) {
	long := strings.Repeat("é", maxToolMessage) // two bytes each: the cut must not split one
	got := clip(long)
	require.Less(t, len(got), maxToolMessage+300)
	require.Contains(t, got, "[unstuck: the result is")
	require.True(t, strings.HasPrefix(got, long[:maxToolMessage-2]))
	require.Equal(t, "short", clip("short"))
}

// Carried state from a starter (no continued execution behind it) is
// refused before anything runs: it holds the agent's spec.
func TestCarriedStateOnAFirstRunIsRefused(t *testing.T) {
	for name, in := range map[string]AgentInput{
		"plain": {Agent: "agent", Task: "t", Continued: bigRun(1, "x")},
		"gzip":  {Agent: "agent", Task: "t", ContinuedGzip: []byte{0x1f, 0x8b}},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, echoSpec(), nil, okTool)
			h.env.ExecuteWorkflow(AgentWorkflow, in)
			var app *temporal.ApplicationError
			require.ErrorAs(t, h.env.GetWorkflowError(), &app)
			require.Equal(t, BadInputError, app.Type())
			require.Contains(t, app.Message(), "accepted only on the run's own continue-as-new")
			require.Empty(t, h.toolReqs)
			require.Empty(t, h.requests)
		})
	}
}

// Decompression stops at the bound: a small input never expands into a
// huge run.
func TestCarriedStateDecompressionIsBounded(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(bytes.Repeat([]byte(" "), maxCarriedJSON+10))
	require.NoError(t, zw.Close())
	require.Less(t, buf.Len(), 1<<20)
	_, err := uncarryRun(buf.Bytes())
	require.ErrorContains(t, err, "expands to over")
}

// The run's parts are embedded: its JSON stays flat, as runs carried by
// earlier versions wrote it, and such a run decodes into the parts.
func TestRunJSONStaysFlat(t *testing.T) {
	old := `{"input":{"agent":"a","task":"t"},"nodes":[{"id":"n1","kind":"task","status":"completed","parents":[],"agent":"a","at":"2024-01-01T00:00:00Z"}],
		"next_id":1,"step":4,"generation":2,"phase":"running","state":{"x":1},"frontier":["n1"],"sent_messages":3,
		"blocked":["k"],"graph_at":"B","visits":{"B":2},"ignored_signals":5,"ladder":{"rungs":["stop"],"next":0}}`
	var run Run
	require.NoError(t, json.Unmarshal([]byte(old), &run))
	require.Len(t, run.Nodes, 1)
	require.Equal(t, 4, run.Step)
	require.Equal(t, 2, run.Generation)
	require.Equal(t, signals.PhaseRunning, run.Phase)
	require.Equal(t, 3, run.SentMessages)
	require.Equal(t, []string{"k"}, run.Blocked)
	require.Equal(t, "B", run.GraphAt)
	require.Equal(t, 5, run.IgnoredSignals)
	var back map[string]any
	require.NoError(t, json.Unmarshal(mustJSON(run), &back))
	for _, key := range []string{"nodes", "next_id", "step", "state", "sent_messages", "ladder", "blocked", "graph_at", "ignored_signals"} {
		require.Contains(t, back, key)
	}
}

// The input notes the fields it does not know (a first run refuses them:
// TestUnknownInputFieldIsRefused on the real server), and decodes the rest.
func TestInputNotesUnknownFields(t *testing.T) {
	var in AgentInput
	require.NoError(t, json.Unmarshal([]byte(`{"agent": "agent", "task": "t", "outputSchema": {}, "priority": 1}`), &in))
	require.Equal(t, []string{"outputSchema", "priority"}, in.Unknown)
	require.Equal(t, "agent", in.Agent)

	var known AgentInput
	require.NoError(t, json.Unmarshal([]byte(`{"agent": "a", "task": "t", "input": {"x": 1}, "output_schema": {"type": "object"}}`), &known))
	require.Empty(t, known.Unknown)
	require.JSONEq(t, `{"x": 1}`, string(known.Input))
	require.Error(t, json.Unmarshal([]byte(`{"agent": 3}`), &known), "a wrong type is still an error")
}

// Checkpoints (package edit) are new in the carried run and optional: an
// edit of a node without one starts the loop escape afresh. A run that
// fits without them must not stop for them: the released code carried it,
// and a run it carried must continue as new the same way (replaying its
// last workflow task, the code must decide the same).
func TestCheckpointsNeverMakeARunTooLargeToCarry(t *testing.T) {
	noise := func(seed uint32, n int) string {
		var b strings.Builder
		x := seed
		for b.Len() < n {
			x = x*1664525 + 1013904223
			b.WriteByte(byte('a' + x>>24%26))
		}
		return b.String()
	}
	// Just under the bound without checkpoints: incompressible results,
	// and 64 requests each with a checkpoint of their own.
	run := bigRun(1, noise(1, 2500<<10))
	for i := 0; i < edit.MaxCheckpoints; i++ {
		cp := mustJSON(edit.Checkpoint{Step: i, LastError: noise(uint32(i+7), 2<<10)})
		run.Nodes = append(run.Nodes, Node{Node: signals.Node{ID: "r", Kind: signals.KindRequest, Status: signals.StatusCompleted}, Checkpoint: cp})
	}
	run.NextID = len(run.Nodes)
	plain := *run
	plain.Nodes = nil
	for _, n := range run.Nodes {
		n.Checkpoint = nil
		plain.Nodes = append(plain.Nodes, n)
	}
	var in AgentInput
	require.NoError(t, carryRun(&in, &plain), "the run fits without its checkpoints")
	in = AgentInput{}
	require.NoError(t, carryRun(&in, run), "so it is carried with them, or without")
}
