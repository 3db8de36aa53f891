package testsuite

import (
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A model that refuses is told so and asked again; its refusals are a
// loop the detector sees, and the ladder takes over: a wait cannot cure a
// refusal, so its first rung is passed over for a person, whose reply the
// model reads before it answers. Whole replies and streamed ones alike,
// and a graph's llm node, visited again as a free-form step asks again; each refusal reaches the next request as an
// assistant message a provider accepts (the double refuses one with
// neither content nor calls, as OpenAI does).
func TestARefusingModelIsToldThenTheLadderTakesOver(t *testing.T) {
	t.Parallel()
	cfg := `
model: { base_url: "{{MODEL}}", name: refuser }
tools:
  - { name: echo, builtin: echo, parameters: { type: object } }
agents:
  - { name: whole, instructions: Help., tools: [echo], policies: { escalation: [retry, human, stop] } }
  - { name: streamed, instructions: Help., tools: [echo], stream_calls: true, policies: { escalation: [retry, human, stop] } }
  - name: graph
    instructions: Help.
    tools: [echo]
    policies: { escalation: [retry, human, stop] }
    graph: { start: L, nodes: { L: { llm: true }, E: { end: true } }, edges: [ { from: L, to: E } ] }
`
	refuser := func(req openai.ChatCompletionRequest) scriptedmodel.Turn {
		for _, m := range req.Messages {
			if m.Role == openai.ChatMessageRoleUser && strings.HasPrefix(m.Content, "A person replied: ") {
				return scriptedmodel.Turn{Content: "done as the person said"}
			}
		}
		return scriptedmodel.Turn{Refusal: "I can't help with that."}
	}
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"refuser": refuser})
	for _, agent := range []string{"whole", "streamed", "graph"} {
		before := len(s.model.Requests())
		run := s.start(workflows.AgentInput{Agent: agent, Task: "help"})
		require.Eventually(t, func() bool { p, _ := s.phase(run); return p == signals.PhaseAwaitingHuman }, 30*time.Second, 50*time.Millisecond, agent)
		require.NoError(t, s.update(run, signals.Reply, signals.ReplyRequest{Text: "It is fine: answer in one sentence.", Audit: signals.Audit{By: "ops"}}))
		res, err := s.result(run)
		require.NoError(t, err, agent)
		if agent == "graph" {
			require.JSONEq(t, `{}`, string(res.Output), "the end node's output: the State")
		} else {
			require.JSONEq(t, `"done as the person said"`, string(res.Output), agent)
		}
		require.Len(t, res.Escalations, 1, agent)
		require.Equal(t, "human", res.Escalations[0].Action, agent)
		require.Contains(t, res.Escalations[0].Why, "no_progress loop", agent)

		reqs := s.model.Requests()[before:]
		require.Len(t, reqs, 4, "%s: three refusals, then the answer", agent)
		var carried []string
		for _, m := range reqs[3].Messages {
			if m.Role == openai.ChatMessageRoleAssistant {
				carried = append(carried, m.Content)
			}
		}
		require.Equal(t, []string{"[refused] I can't help with that.", "[refused] I can't help with that.", "[refused] I can't help with that."}, carried, agent)

		outputs := nodesOf(s.trace(run), signals.KindOutput)
		require.Len(t, outputs, 4, agent)
		for _, o := range outputs[:3] {
			require.Equal(t, signals.StatusFailed, o.Status, agent)
			require.JSONEq(t, `"I can't help with that."`, string(o.Output), agent)
			require.Contains(t, o.Error, "the reply was a refusal", agent)
		}
		switch agent {
		case "whole":
			recordAndReplay(t, run, "no_answer_loop")
		case "graph":
			for _, o := range outputs[:3] {
				require.Equal(t, "L", o.GraphNode)
			}
			recordAndReplay(t, run, "graph_no_answer_loop")
		}
	}
}
