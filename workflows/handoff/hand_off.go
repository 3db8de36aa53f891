package handoff

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// maxRefusalsPerReason is how many refusals of one reason a handoff node
// names before it counts the rest.
const maxRefusalsPerReason = 3

// HandOff carries out a handoff: it records the handoff node, reads the
// agents' load, ranks the candidates and hands the run to the first the
// worker resolves (takeOver). It answers who took the run ("" when no one
// could: the node is failed with every refusal) and the update's answer;
// err only for a cancelled run, or one that stops.
func (h *Handoffs) HandOff(ctx workflow.Context, ask Ask) (string, signals.HandoffResult, error) {
	spec := h.host.Spec()
	from := spec.Agent.Name
	path := h.pathNow()
	parents := ask.Parents
	if parents == nil {
		parents = h.trace.Frontier
	}
	id := h.host.AddNode(ctx, signals.Node{
		Kind: signals.KindHandoff, Status: signals.StatusPending, Parents: parents,
		Args: mustJSON(ask), From: from, Reason: ask.Reason, By: ask.By,
	})
	live(h.life.HandOver(targetText(ask.To)))
	var ranked []string
	var refused []signals.HandoffRefusal
	var note string
	if ask.Trigger == TriggerReturn {
		ranked = []string{ask.To} // back to the agent that handed the run over
	} else {
		named := ask.To
		if named == config.HandoffHuman {
			named = "" // any person: ranked as usual, then only people kept
		}
		hask := policies.HandoffAsk{
			From: from, Allowed: spec.Agent.HandoffTargets(), Path: path, To: named,
			Reason: ask.Reason, Summary: ask.Summary, SuggestedAction: ask.Suggested,
		}
		var candidates []policies.HandoffCandidate
		candidates, note = h.candidates(ctx, hask)
		if ctx.Err() != nil {
			return "", signals.HandoffResult{}, h.host.Cancelled(ctx, id)
		}
		if note != "" {
			h.trace.Node(id).Output = mustJSON(map[string]string{"note": note})
		}
		choice := policies.ChooseHandoff(hask, candidates)
		for _, name := range choice.Ranked {
			if p, _ := spec.Peer(name); ask.To == config.HandoffHuman && !p.Human() {
				choice.Refused = append(choice.Refused, policies.HandoffRefusal{Agent: name, Why: `not a person (the handoff asked for "human")`})
				continue
			}
			ranked = append(ranked, name)
		}
		// Many refusals for one reason (agents not in the handoffs, model
		// agents when a person was asked for) are folded into a count
		// (version handoff-refusals, asked only then).
		if c := policies.CompactRefusals(choice.Refused, maxRefusalsPerReason); len(c) < len(choice.Refused) && h.on(ctx, h.gates.Refusals) {
			choice.Refused = c
		}
		for _, f := range choice.Refused {
			refused = append(refused, signals.HandoffRefusal{Agent: f.Agent, Why: f.Why})
		}
	}
	for _, to := range ranked {
		live(h.life.HandOver(to))
		next, err := h.host.Resolve(ctx, to, "resolve agent "+to+" to take over")
		if cancelled(ctx, err) {
			return "", signals.HandoffResult{}, h.host.Cancelled(ctx, id)
		}
		if err != nil {
			refused = append(refused, signals.HandoffRefusal{Agent: to, Why: "the worker cannot take it on: " + h.errorText(err)})
			continue
		}
		h.host.Count(ctx, h.metric, 1, "outcome", "taken", "trigger", ask.Trigger) // before: the agent tag is the one handing over
		if err := h.takeOver(ctx, id, next, ask, refused, note); err != nil {
			return "", signals.HandoffResult{}, err
		}
		return to, signals.HandoffResult{NodeID: id, To: to, Refused: refused, HandoffPath: *h.path}, nil
	}
	live(h.life.HandOverRefused()) // the run goes on with its agent, or stops
	h.host.Count(ctx, h.metric, 1, "outcome", "refused", "trigger", ask.Trigger)
	n := h.trace.Node(id)
	n.Status, n.Refused, n.At = signals.StatusFailed, refused, workflow.Now(ctx).UTC()
	n.Error = "no agent can take the run" + describeRefusals(refused)
	h.host.Failed(n.Error)
	return "", signals.HandoffResult{NodeID: id, Refused: refused, HandoffPath: path}, nil
}

// describeRefusals lists refusals for a message: ": a (why); b (why)".
func describeRefusals(refused []signals.HandoffRefusal) string {
	if len(refused) == 0 {
		return " (no agent is allowed)"
	}
	var parts []string
	for _, f := range refused {
		parts = append(parts, fmt.Sprintf("%s (%s)", f.Agent, f.Why))
	}
	return ": " + strings.Join(parts, "; ")
}
