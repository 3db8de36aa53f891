package workflows

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
)

// The reserved handoff tool (docs/contract.md "Model protocol") is offered to
// a free-form agent with handoffs. Its call is checked before the step's
// calls run (a bad one goes back to the model as {call, error}), settles
// once the step's other calls have finished, and is carried out when the
// step ends, unless the same reply finished the task with final_output.

// handoffToolArgs are the handoff tool's arguments.
type handoffToolArgs struct {
	To        string `json:"to"`
	Reason    string `json:"reason"`
	Summary   string `json:"summary"`
	Suggested string `json:"suggested_next_action"`
}

// handoffToolDef is what the model sees of the handoff tool: its
// arguments, and the agents it may name.
func handoffToolDef(run *Run) activities.ToolDef {
	var targets []string
	for _, p := range run.Spec.Registry {
		if p.Name != run.Spec.Agent.Name && allowsTarget(run.Spec.Agent.HandoffTargets(), p) {
			t := p.Name
			if p.Description != "" {
				t += " (" + p.Description + ")"
			}
			targets = append(targets, t)
		}
	}
	return activities.ToolDef{
		Name: HandoffTool,
		Description: "Hand this task, with everything said and done so far, to another agent better placed to finish it. " +
			"Agents you may name in \"to\": " + strings.Join(targets, "; ") + ". Leave \"to\" out to let the best-placed agent be chosen.",
		Parameters: mustJSON(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"to":                    map[string]any{"type": "string", "description": "the agent to hand over to, or \"human\" for a person (optional)"},
				"reason":                map[string]any{"type": "string", "enum": policies.HandoffReasons},
				"summary":               map[string]any{"type": "string", "description": "the problem as it stands, for the agent taking over"},
				"suggested_next_action": map[string]any{"type": "string", "description": "what the agent taking over should do first"},
			},
			"required":             []string{"reason", "summary", "suggested_next_action"},
			"additionalProperties": false,
		}),
	}
}

// handoffCallAsk reads and checks a handoff call's arguments: the problem
// goes back to the model when they are not right.
func (r *runner) handoffCallAsk(args json.RawMessage) (*handoffAsk, string) {
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.DisallowUnknownFields()
	var a handoffToolArgs
	if err := dec.Decode(&a); err != nil {
		return nil, "handoff arguments: " + err.Error() + ` (it takes "to"?, "reason", "summary", "suggested_next_action")`
	}
	var problems []string
	if err := handoffReasonValid(a.Reason); err != nil {
		problems = append(problems, err.Error())
	}
	if strings.TrimSpace(a.Summary) == "" {
		problems = append(problems, `"summary" is empty: say what the problem is, for the agent taking over`)
	}
	if strings.TrimSpace(a.Suggested) == "" {
		problems = append(problems, `"suggested_next_action" is empty: say what the agent taking over should do first`)
	}
	if err := r.targetRefused(a.To); err != nil {
		problems = append(problems, strings.TrimPrefix(err.Error(), "handoff: "))
	}
	if len(problems) > 0 {
		return nil, "handoff: " + strings.Join(problems, "; ")
	}
	return &handoffAsk{Trigger: triggerTool, To: a.To, Reason: a.Reason, Summary: a.Summary, Suggested: a.Suggested}, ""
}

// settleHandoffCall takes a handoff call once the step's other calls have
// finished: the first of a reply is carried out when the step ends, a
// second is answered that one is enough.
func (r *runner) settleHandoffCall(ctx workflow.Context, c *stepCall) {
	c.done = true
	if r.stepHandoff != nil {
		c.errText, c.class = "one handoff per reply: "+r.stepHandoff.nodeID+" hands the run over already", policies.Structural
		r.finishNode(ctx, c.nodeID, nil, c.errText)
		return
	}
	r.stepHandoff = &toolHandoff{nodeID: c.nodeID, ask: *c.handoff}
}

// toolHandoff is a handoff call waiting for its step to end.
type toolHandoff struct {
	nodeID string
	ask    handoffAsk
}

// handOffForTool carries out the handoff a model asked for: the run
// continues as new as the agent that took it; when no agent can, the run
// stops with the report (no agent, not even a person, is left to take it).
func (r *runner) handOffForTool(ctx workflow.Context, th *toolHandoff) (bool, *AgentResult, error) {
	r.finishNode(ctx, th.nodeID, mustJSON(map[string]string{"handoff": "asked"}), "")
	ask := th.ask
	ask.parents = []string{th.nodeID}
	to, res, err := r.handOff(ctx, ask)
	if err != nil {
		return true, nil, err
	}
	if to == "" {
		why := r.run.node(res.NodeID).Error
		r.finishNode(ctx, th.nodeID, nil, why)
		return true, nil, r.stop(ctx, "the agent asked to hand the run over, and "+why)
	}
	if n := r.run.node(th.nodeID); n != nil {
		n.Output = mustJSON(map[string]any{"handed_to": to, "handoff": res.NodeID, "refused": res.Refused})
	}
	return true, nil, r.continueAsNew(ctx)
}

// String names a handoff ask in logs.
func (a handoffAsk) String() string {
	return fmt.Sprintf("handoff(%s to %q, %s)", a.Trigger, a.To, a.Reason)
}
