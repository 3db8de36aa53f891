package testsuite

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// An agent with stream_calls: true runs a reply of parallel calls, streamed
// slowly by the scripted model (a test double), to the same trace as the
// same run with whole replies: in this version the model activity
// assembles the stream into the same reply, so only ids and times differ.
func TestStreamCallsRunEqualsWholeReplyRun(t *testing.T) {
	t.Parallel()
	run := func(stream bool) (*workflows.AgentResult, []tracedNode, *scriptedmodel.Server) {
		tools := newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
			var args map[string]any
			_ = json.NewDecoder(r.Body).Decode(&args)
			writeJSON(w, 200, map[string]any{"got": args})
		})
		streamCalls := "false"
		if stream {
			streamCalls = "true"
		}
		cfg := `
model: { base_url: "{{MODEL}}", name: streamer }
tools:
  - { name: lookup, http: { url: "` + tools.URL + `/lookup" }, parameters: { type: object, properties: { q: {type: string} } } }
  - { name: fetch, http: { url: "` + tools.URL + `/fetch" }, parameters: { type: object, required: [id], properties: { id: {type: integer} } } }
agents:
  - { name: streamer, instructions: Look things up., tools: [lookup, fetch], stream_calls: ` + streamCalls + `, policies: { repair: { max_attempts: 0 } } }
`
		parallel := scriptedmodel.CallsTurn(
			scriptedmodel.NewCall("lookup", map[string]any{"q": "flights to Zürich"}),
			scriptedmodel.NewCall("fetch", map[string]any{"id": 7}),
			scriptedmodel.NewCall("fetch", map[string]any{"id": "not a number"}), // refused by the schema, as {call, error}
		)
		parallel.Content = "looking"
		parallel.CallDelay = 100 * time.Millisecond // calls complete one by one
		s := newStack(t, cfg, map[string]scriptedmodel.Script{"streamer": scriptedmodel.Sequence(
			parallel,
			scriptedmodel.CallTurn("final_output", map[string]any{"found": true}),
		)})
		r := s.start(workflows.AgentInput{Agent: "streamer", Task: "look"})
		res, err := s.result(r)
		require.NoError(t, err)
		if stream {
			// Model replies that carry token counts (and were streamed):
			// kept so later versions replay them.
			recordAndReplay(t, r, "stream_calls_parallel")
		}
		return res, shapeOf(s.trace(r)), s.model
	}
	wholeRes, wholeTrace, wholeModel := run(false)
	streamRes, streamTrace, streamModel := run(true)

	for _, req := range wholeModel.Requests() {
		require.False(t, req.Stream)
	}
	reqs := streamModel.Requests()
	require.Len(t, reqs, 2)
	for _, req := range reqs {
		require.True(t, req.Stream, "every model request of the streaming agent is streamed")
	}
	require.JSONEq(t, `{"found": true}`, string(streamRes.Output))
	require.JSONEq(t, string(wholeRes.Output), string(streamRes.Output))
	require.Equal(t, wholeTrace, streamTrace)
	require.Len(t, nodesOfShape(streamTrace, signals.KindCall), 4, "three calls and final_output")
}

// tracedNode is a trace node without its id and time; parents are indexes
// of nodes in the trace.
type tracedNode struct {
	Kind    signals.NodeKind
	Status  signals.NodeStatus
	Parents []int
	Agent   string
	Tool    string
	Args    string
	Output  string
	Error   string
}

func shapeOf(tr signals.Trace) []tracedNode {
	at := map[string]int{}
	for i, n := range tr.Nodes {
		at[n.ID] = i
	}
	out := make([]tracedNode, 0, len(tr.Nodes))
	for _, n := range tr.Nodes {
		tn := tracedNode{Kind: n.Kind, Status: n.Status, Agent: n.Agent, Tool: n.Tool, Args: string(n.Args), Output: string(n.Output), Error: n.Error}
		for _, p := range n.Parents {
			tn.Parents = append(tn.Parents, at[p])
		}
		out = append(out, tn)
	}
	return out
}

func nodesOfShape(nodes []tracedNode, kind signals.NodeKind) []tracedNode {
	var out []tracedNode
	for _, n := range nodes {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}
