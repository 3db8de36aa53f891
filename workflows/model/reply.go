package model

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
)

// A reply that answers nothing (empty, filtered, a refusal;
// policies.AnswersNothing) is told so and asked again, and each one is a
// failure the loop detector counts: a model that keeps answering nothing
// climbs the escalation ladder. Before version no-answer-loop such a reply
// was an output refused by the schema, and the run stopped once the
// output's repair attempts were spent, whatever the ladder said. Telling
// the model and counting the failure are the step's (workflows/no_answer.go).

// NoAnswer says how a reply without calls answered nothing, when the run
// counts such a reply with the loop detector (version no-answer-loop,
// asked only for such a reply).
func (c *Call) NoAnswer(ctx workflow.Context, content, refusal, finishReason string) (policies.NoAnswer, bool) {
	return c.noAnswer(ctx, content, refusal, finishReason, c.gates.NoAnswerLoop)
}

// GraphNoAnswer says the same of a graph's llm node, which is then
// visited again (version graph-no-answer).
func (c *Call) GraphNoAnswer(ctx workflow.Context, content, refusal, finishReason string) (policies.NoAnswer, bool) {
	return c.noAnswer(ctx, content, refusal, finishReason, c.gates.GraphNoAnswer)
}

func (c *Call) noAnswer(ctx workflow.Context, content, refusal, finishReason, gate string) (policies.NoAnswer, bool) {
	na, ok := policies.AnswersNothing(content, refusal, finishReason)
	if !ok || !c.on(ctx, gate) {
		return policies.NoAnswer{}, false
	}
	return na, true
}

// Streams says whether the step's model request streams its calls to the
// run: the agent asks for it, in a version that does (asked once a
// generation).
func (c *Call) Streams(ctx workflow.Context) bool {
	if !c.spec.Agent.StreamCalls {
		return false
	}
	if c.mem.streamVersion == nil {
		v := c.version(ctx, c.gates.StreamCalls, 1)
		c.mem.streamVersion = &v
	}
	return *c.mem.streamVersion >= 1
}
