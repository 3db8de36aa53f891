package handoff

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// The reserved handoff tool (docs/contract.md "Model protocol") is offered to
// a free-form agent with handoffs. Its call is checked before the step's
// calls run (a bad one goes back to the model as {call, error}), settles
// once the step's other calls have finished, and is carried out when the
// step ends, unless the same reply finished the task with final_output.

// toolArgs are the handoff tool's arguments.
type toolArgs struct {
	To        string `json:"to"`
	Reason    string `json:"reason"`
	Summary   string `json:"summary"`
	Suggested string `json:"suggested_next_action"`
}

// ToolDef is what the model sees of the handoff tool: its arguments, and
// the agents spec's agent may name.
func ToolDef(spec *config.Resolved) activities.ToolDef {
	var targets []string
	for _, p := range spec.Registry {
		if p.Name != spec.Agent.Name && allows(spec.Agent.HandoffTargets(), p) {
			t := p.Name
			if p.Description != "" {
				t += " (" + p.Description + ")"
			}
			targets = append(targets, t)
		}
	}
	return activities.ToolDef{
		Name: signals.HandoffTool,
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

// CallAsk reads and checks a handoff call's arguments: the problem goes
// back to the model when they are not right.
func (h *Handoffs) CallAsk(args json.RawMessage) (*Ask, string) {
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.DisallowUnknownFields()
	var a toolArgs
	if err := dec.Decode(&a); err != nil {
		return nil, "handoff arguments: " + err.Error() + ` (it takes "to"?, "reason", "summary", "suggested_next_action")`
	}
	var problems []string
	if err := reasonValid(a.Reason); err != nil {
		problems = append(problems, err.Error())
	}
	if strings.TrimSpace(a.Summary) == "" {
		problems = append(problems, `"summary" is empty: say what the problem is, for the agent taking over`)
	}
	if strings.TrimSpace(a.Suggested) == "" {
		problems = append(problems, `"suggested_next_action" is empty: say what the agent taking over should do first`)
	}
	if err := refusedTarget(h.host.Spec(), a.To); err != nil {
		problems = append(problems, strings.TrimPrefix(err.Error(), "handoff: "))
	}
	if len(problems) > 0 {
		return nil, "handoff: " + strings.Join(problems, "; ")
	}
	return &Ask{Trigger: TriggerTool, To: a.To, Reason: a.Reason, Summary: a.Summary, Suggested: a.Suggested}, ""
}

// reasonValid checks a handoff reason against the enum.
func reasonValid(reason string) error {
	for _, ok := range policies.HandoffReasons {
		if reason == ok {
			return nil
		}
	}
	return fmt.Errorf("reason %q is not one of %v", reason, policies.HandoffReasons)
}

// Call is a handoff call of the step under way, waiting for the step to
// end.
type Call struct {
	// Node is the call's node.
	Node string
	ask  Ask
}

// SettleCall takes the handoff call at node once the step's other calls
// have finished: the first of a reply is carried out when the step ends
// (TakeCall), a second is answered that one is enough. It answers why
// the call was refused ("" when it was taken).
func (h *Handoffs) SettleCall(ctx workflow.Context, node string, ask Ask) string {
	if c := h.mem.call; c != nil {
		why := "one handoff per reply: " + c.Node + " hands the run over already"
		h.host.FinishNode(ctx, node, nil, why)
		return why
	}
	h.mem.call = &Call{Node: node, ask: ask}
	return ""
}

// TakeCall is the step's handoff call (nil when it made none), for the
// step's end: the step has no call from then on.
func (h *Handoffs) TakeCall() *Call {
	c := h.mem.call
	h.mem.call = nil
	return c
}

// ForTool carries out the handoff a model asked for: the run continues
// as new as the agent that took it; when no agent can, the run stops with
// the report (no agent, not even a person, is left to take it).
func (h *Handoffs) ForTool(ctx workflow.Context, c *Call) error {
	h.host.FinishNode(ctx, c.Node, mustJSON(map[string]string{"handoff": "asked"}), "")
	ask := c.ask
	ask.Parents = []string{c.Node}
	to, res, err := h.HandOff(ctx, ask)
	if err != nil {
		return err
	}
	if to == "" {
		why := h.trace.Node(res.NodeID).Error
		h.host.FinishNode(ctx, c.Node, nil, why)
		return h.host.Stop(ctx, "the agent asked to hand the run over, and "+why)
	}
	if n := h.trace.Node(c.Node); n != nil {
		n.Output = mustJSON(map[string]any{"handed_to": to, "handoff": res.NodeID, "refused": res.Refused})
	}
	return h.host.ContinueAsNew(ctx)
}
