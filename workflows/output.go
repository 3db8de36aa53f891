package workflows

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// outputs checks the output a step gives and ends the run (or a
// conversation's turn) with it. Made for each use, over the runner it is
// called on.
type outputs struct{ r *runner }

func (r *runner) outputs() outputs { return outputs{r} }

// checkOutput validates an output against the output schema, if any, and
// answers it as JSON, or the reason it is refused.
func (o outputs) checkOutput(ctx workflow.Context, out json.RawMessage) (json.RawMessage, string) {
	r := o.r
	if len(out) > config.MaxPayloadBytes {
		// The result would be refused by Temporal, failing the run's
		// last workflow task for good.
		return nil, config.OverPayload("the output is", len(out)) + ": return a summary, and keep large data in a tool's store"
	}
	doc, err := decodeJSON(out)
	if err != nil {
		return nil, fmt.Sprintf("output is not JSON: %v", err)
	}
	if r.outputSchema != nil {
		if err := r.outputSchema.Validate(doc); err != nil {
			return nil, "output does not match the output schema: " + config.DescribeViolations(err)
		}
	}
	// Re-encoded, so what is recorded is exactly the value checked.
	return mustJSON(doc), ""
}

// contentOutput ends the run on a reply without calls: its content is the
// output (parsed as JSON and validated when there is an output schema).
func (o outputs) contentOutput(ctx workflow.Context, reqID, content, finish string) (bool, *AgentResult, error) {
	r := o.r
	out := mustJSON(content)
	if r.outputSchema != nil {
		out = json.RawMessage(stripFences(content))
	}
	checked, errText := o.checkOutput(ctx, out)
	if strings.TrimSpace(content) == "" {
		// An empty reply (cut off, filtered) is no answer: ask again.
		errText = fmt.Sprintf("the reply was empty (finish_reason %q): call a tool or give the result", finish)
	}
	if errText != "" {
		id := r.addNode(ctx, Node{Node: signals.Node{
			Kind: signals.KindOutput, Status: signals.StatusRunning, Parents: []string{reqID},
			Output: rawOrString(content),
		}, Step: r.run.Step}).ID
		if stopErr := o.failOutput(ctx, id, errText); stopErr != nil {
			return true, nil, stopErr
		}
		r.run.Refused(id)
		return false, nil, nil
	}
	return o.output(ctx, stepOutput{parent: reqID, value: checked})
}

// failOutput refuses an output; the reason reaches the model, and past the
// agent's repair attempts the run stops instead of looping on it.
func (o outputs) failOutput(ctx workflow.Context, id, errText string) error {
	r := o.r
	r.finishNode(ctx, id, nil, errText)
	r.run.LastError = errText
	r.run.OutputFailures++
	if max := r.run.Spec.Agent.Policies.Repair.MaxAttempts; r.run.OutputFailures > max {
		return r.stop(ctx, fmt.Sprintf("the output failed the output schema %d times (repair.max_attempts is %d): %s", r.run.OutputFailures, max, errText))
	}
	return nil
}

// complete records the output node and answers the completion result.
func (o outputs) complete(ctx workflow.Context, parent string, output json.RawMessage) (*AgentResult, error) {
	r := o.r
	r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindOutput, Status: signals.StatusCompleted, Parents: []string{parent}, Output: output,
	}, Step: r.run.Step})
	return o.completed(ctx, output)
}

// completed is the run's end with output, already in the trace.
func (o outputs) completed(ctx workflow.Context, output json.RawMessage) (*AgentResult, error) {
	r := o.r
	if err := r.setPhase(ctx, signals.PhaseCompleted); err != nil {
		return nil, err
	}
	res := r.result(ResultCompleted)
	res.Output = output
	return res, nil
}

// output is the output a step gave: it completes the run, or, in a
// conversation, ends the turn (endTurn, turn.go).
func (o outputs) output(ctx workflow.Context, given stepOutput) (bool, *AgentResult, error) {
	r := o.r
	if r.run.Spec.Agent.Conversation != nil {
		return r.turns().endTurn(ctx, given)
	}
	res, err := o.complete(ctx, given.parent, given.value)
	if given.graphNode != "" {
		r.run.tagGraphNode(r.run.Nodes[len(r.run.Nodes)-1].ID, given.graphNode) // the output node
	}
	return true, res, err
}

// result is the report of the run as it stands.
func (r *runner) result(status string) *AgentResult {
	return &AgentResult{
		Status:             status,
		Output:             json.RawMessage("null"),
		Agent:              r.run.Spec.Agent.Name,
		Steps:              r.run.Step,
		Generation:         r.run.Generation,
		HandoffPath:        r.run.HandoffPath,
		Escalations:        r.run.Escalations,
		EscalationsDropped: r.run.EscalationsDropped,
		LastError:          r.run.LastError,
		Spend:              r.budget().Spent(r.seenAt),
	}
}

// stripFences accepts the common ```json ... ``` wrapping of models: the
// first fenced block is the output, whatever text surrounds it.
func stripFences(s string) string {
	t := strings.TrimSpace(s)
	start := strings.Index(t, "```")
	if start < 0 {
		return t
	}
	body := t[start+3:]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	}
	if end := strings.Index(body, "```"); end >= 0 {
		body = body[:end]
	}
	return strings.TrimSpace(body)
}

// decodeJSON decodes one JSON value, numbers kept exact, and refuses
// anything after it ("{...} hope this helps" is not JSON).
func decodeJSON(b []byte) (any, error) { return policies.DecodeJSON(b) }

func inputOrEmpty(in json.RawMessage) json.RawMessage {
	if len(in) == 0 {
		return json.RawMessage(`{}`)
	}
	return in
}
