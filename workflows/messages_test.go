package workflows

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// humanGraph is one human node H, then the end with the person's output.
func humanGraph() *config.Resolved {
	spec := echoSpec()
	spec.Agent.Policies.HumanTimeout = config.Duration(time.Hour)
	spec.Agent.Graph = &config.Graph{
		Start: "H",
		Nodes: map[string]config.GraphNode{"H": {Human: true}, "E": {End: true, Output: "†state.human"}},
		Edges: []config.GraphEdge{{From: "H", To: "E"}},
	}
	return spec
}

// rawSignal is a signal payload exactly as given, not encoded by the SDK.
func rawSignal(encoding string, data []byte) converter.RawValue {
	return converter.NewRawValue(&commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte(encoding)}, Data: data})
}

func (h *harness) signal(after time.Duration, name string, payload any) {
	h.env.RegisterDelayedCallback(func() { h.env.SignalWorkflow(name, payload) }, after)
}

// A signal whose payload cannot be decoded, or is too large, is recorded
// and ignored; the run's message loop goes on and takes the next signal.
func TestBadSignalsAreRecordedAndDoNotBlockTheNextOne(t *testing.T) {
	h := newHarness(t, humanGraph(), nil, okEcho)
	h.signal(time.Minute, signals.Approve, rawSignal("json/plain", []byte("{not json")))
	h.signal(2*time.Minute, signals.Reply, rawSignal("binary/protobuf", []byte{0xff, 0x00}))
	h.signal(3*time.Minute, signals.Reply, signals.ReplyRequest{Text: strings.Repeat("x", config.MaxMessageBytes+1)})
	h.signal(4*time.Minute, signals.Reply, signals.ReplyRequest{Text: "ok", Output: json.RawMessage(`{"done":true}`)})
	res, err := h.run(AgentInput{Agent: "agent", Task: "ask"})
	require.NoError(t, err)
	require.JSONEq(t, `{"done":true}`, string(res.Output))

	var ignored []string
	for _, n := range h.trace().Nodes {
		if n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped {
			ignored = append(ignored, n.Error)
		}
	}
	require.Len(t, ignored, 3)
	require.Contains(t, ignored[0], "approve: the payload cannot be decoded as JSON")
	require.Contains(t, ignored[1], "reply: the payload cannot be decoded as JSON")
	require.Contains(t, ignored[2], "over the 256 KiB a message may carry")
}

// A flood of bad signals of one kind is recorded up to a bound, then only
// counted; other kinds are still recorded.
func TestASignalFloodIsBoundedPerKind(t *testing.T) {
	h := newHarness(t, humanGraph(), nil, okEcho)
	for i := 0; i < config.MaxIgnoredSignalNodes+30; i++ {
		h.signal(time.Minute, signals.Edit, map[string]string{"node_id": "n1"})
	}
	h.signal(2*time.Minute, signals.Approve, map[string]string{"call_id": "n9", "decision": "approve"})
	h.signal(3*time.Minute, signals.Reply, signals.ReplyRequest{Text: "ok", Output: json.RawMessage(`1`)})
	_, err := h.run(AgentInput{Agent: "agent", Task: "ask"})
	require.NoError(t, err)
	byKind := map[string]int{}
	for _, n := range h.trace().Nodes {
		if n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped {
			var args map[string]any
			require.NoError(t, json.Unmarshal(n.Args, &args))
			byKind[args["signal"].(string)]++
		}
	}
	require.Equal(t, map[string]int{signals.Edit: config.MaxIgnoredSignalNodes, signals.Approve: 1}, byKind)
}

// An update too large is rejected by its validator; the run goes on.
func TestAnOversizedUpdateIsRejected(t *testing.T) {
	h := newHarness(t, humanGraph(), nil, okEcho)
	var big, ok updateResult
	h.replyWith(time.Minute, signals.ReplyRequest{Text: strings.Repeat("x", config.MaxMessageBytes+1)}, &big)
	h.replyWith(2*time.Minute, signals.ReplyRequest{Text: "ok", Output: json.RawMessage(`2`)}, &ok)
	res, err := h.run(AgentInput{Agent: "agent", Task: "ask"})
	require.NoError(t, err)
	require.ErrorContains(t, big.rejected, "over the 256 KiB a message may carry")
	require.NoError(t, ok.rejected)
	require.JSONEq(t, `2`, string(res.Output))
}
