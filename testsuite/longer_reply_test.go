package testsuite

import (
	"encoding/json"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// writerConfig is an agent whose model's reply bound is known.
const writerConfig = `
model: { base_url: "{{MODEL}}", name: writer, context_window: 8000, max_output_tokens: 2000 }
tools:
  - { name: echo, builtin: echo, parameters: { type: object } }
agents:
  - { name: writer, instructions: Write., tools: [echo] }
`

// A reply cut off by its length in the middle of a call's arguments is
// asked again with the model's max_output_tokens, and the whole call runs
// once.
func TestACutOffReplyIsAskedAgainWithRoomForTheCall(t *testing.T) {
	t.Parallel()
	writer := func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		if len(scriptedmodel.LastToolResults(req)) > 0 {
			return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
		}
		if req.MaxCompletionTokens == 0 {
			return scriptedmodel.Turn{FinishReason: "length", Calls: []scriptedmodel.Call{{Name: "echo", Args: `{"text": "a long para`}}}
		}
		return scriptedmodel.CallTurn("echo", map[string]any{"text": "a long paragraph"})
	}
	s := newStack(t, writerConfig, map[string]scriptedmodel.Script{"writer": writer})
	run := s.start(workflows.AgentInput{Agent: "writer", Task: "write"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	reqs := s.model.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, 2000, reqs[1].MaxCompletionTokens)
	tr := s.trace(run)
	calls := nodesOf(tr, signals.KindCall)
	require.JSONEq(t, `{"text": "a long paragraph"}`, string(calls[0].Args))
	var rec struct {
		LongerReply int `json:"longer_reply"`
	}
	require.NoError(t, json.Unmarshal(nodesOf(tr, signals.KindRequest)[0].Output, &rec))
	require.Equal(t, 2000, rec.LongerReply)
	recordAndReplay(t, run, "longer_reply")
}

// Arguments of a cut-off reply that the repair pipeline's rules read whole
// (lenient JSON) are repaired and run: no second request.
func TestCutOffArgumentsTheRulesReadRunWithoutAskingAgain(t *testing.T) {
	t.Parallel()
	writer := func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		if len(scriptedmodel.LastToolResults(req)) > 0 {
			return scriptedmodel.CallTurn("final_output", map[string]any{"done": true})
		}
		return scriptedmodel.Turn{FinishReason: "length", Calls: []scriptedmodel.Call{{Name: "echo", Args: `{'text': 'short'}`}}}
	}
	s := newStack(t, writerConfig, map[string]scriptedmodel.Script{"writer": writer})
	run := s.start(workflows.AgentInput{Agent: "writer", Task: "write"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.JSONEq(t, `{"done": true}`, string(res.Output))
	reqs := s.model.Requests()
	require.Len(t, reqs, 2, "the cut-off call ran; nothing was asked again")
	require.Zero(t, reqs[0].MaxCompletionTokens)
	require.Zero(t, reqs[1].MaxCompletionTokens)
	tr := s.trace(run)
	calls := nodesOf(tr, signals.KindCall)
	require.Len(t, calls, 2) // echo, then final_output
	require.JSONEq(t, `{"text": "short"}`, string(calls[0].Args))
	require.NotEmpty(t, nodesOf(tr, signals.KindRepair), "the repair is on record")
	recordAndReplay(t, run, "cut_off_repair")
}
