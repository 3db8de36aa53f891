package handoff

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
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

// registryWindow is how far back an agent's success rate is read.
const registryWindow = 24 * time.Hour

// candidates is the registry with the live load and success rate of each
// agent the choice may weigh them for (policies.NeedsLoad), read by an
// activity; the others are refused before their figures count. Without
// figures (no visibility, the server busy) the choice goes on without
// them, and note says so.
func (h *Handoffs) candidates(ctx workflow.Context, ask policies.HandoffAsk) ([]policies.HandoffCandidate, string) {
	registry := h.host.Spec().Registry
	var all, names []string
	for _, p := range registry {
		all = append(all, p.Name)
		if policies.NeedsLoad(ask, policies.HandoffCandidate{Name: p.Name, Human: p.Human()}) {
			names = append(names, p.Name)
		}
	}
	// The activity's input changes: version handoff-loads, asked only
	// when the lists differ.
	if len(names) < len(all) && h.version(ctx, h.gates.Loads, 1) < 1 {
		names = all
	}
	req := activities.RegistryRequest{Agents: names, Window: registryWindow, Namespace: workflow.GetInfo(ctx).Namespace}
	loads, err := h.host.Loads(ctx, req)
	note := ""
	if err != nil && len(names) > 0 {
		note = "the agents' load could not be read, so capacity and success rates were not weighed: " + h.errorText(err)
	}
	byName := map[string]activities.AgentLoad{}
	for _, l := range loads {
		byName[l.Agent] = l
	}
	out := make([]policies.HandoffCandidate, 0, len(registry))
	for _, p := range registry {
		l, ok := byName[p.Name]
		rate := -1.0
		if ok {
			rate = l.SuccessRate()
		}
		out = append(out, policies.HandoffCandidate{
			Name: p.Name, Description: p.Description, Capabilities: p.Capabilities, Tier: p.Tier, Human: p.Human(),
			MaxConcurrent: p.MaxConcurrent, Running: l.Running, SuccessRate: rate,
		})
	}
	return out, note
}

// takeOver hands the run to the agent of spec: the handoff node keeps the
// context (what the new agent reads first), and the run becomes that
// agent's, with the loop escape, graph walk and step ceiling of its own.
// The trace, State, escalations and counters stay: it is one run.
func (h *Handoffs) takeOver(ctx workflow.Context, id string, spec *config.Resolved, ask Ask, refused []signals.HandoffRefusal, note string) error {
	path := append(h.pathNow(), spec.Agent.Name)
	// A run handed over before carries the earlier context in its
	// conversation: version handoff-flat leaves it out (asked only then).
	flat := Last(h.trace) >= 0 && h.on(ctx, h.gates.Flat)
	hc, err := h.host.Context(ctx, ContextFor{
		Reason: ask.Reason, Summary: ask.Summary, Suggested: ask.Suggested,
		Trigger: ask.Trigger, Note: note, Path: path, Flat: flat,
	})
	if err != nil {
		return err
	}
	n := h.trace.Node(id)
	n.Status, n.To, n.Refused, n.At = signals.StatusCompleted, spec.Agent.Name, refused, workflow.Now(ctx).UTC()
	n.Output = hc
	// What was under way when the run was handed over will not run.
	h.trace.HandedOver(id, spec.Agent.Name, n.At)
	*h.path = path
	*h.rulesSpent = false
	h.host.Become(spec)
	return nil
}

// Last is the index in the trace of the handoff that gave the run to its
// agent now (-1 when it never changed hands): the conversation starts
// again there, and nothing before it can be edited.
func Last(t *trace.Trace) int {
	for i := len(t.Nodes) - 1; i >= 0; i-- {
		n := &t.Nodes[i]
		if n.Kind == signals.KindHandoff && n.Status == signals.StatusCompleted {
			return i
		}
	}
	return -1
}

// The rules of policies.handoff_when (policies.HandoffRule) are checked
// before each model step of a free-form run. A rule that fires hands the
// run over as any handoff does; when no agent can take it, the rules are
// spent for the agent (the run goes on, and its loop escape still
// watches it) instead of firing again at every step.

// ByRule checks the agent's rules and, when one fires, hands the run
// over: done says the generation ends (continue-as-new as the agent that
// took the run, or err).
func (h *Handoffs) ByRule(ctx workflow.Context) (done bool, err error) {
	when := h.host.Spec().Agent.Policies.HandoffWhen
	if when == nil || !h.mem.on || *h.rulesSpent {
		return false, nil
	}
	var view policies.HandoffView
	if err := h.host.Decoded(ctx, func() { view = h.view() }); err != nil {
		return true, err
	}
	view.Seen = *h.rulesSeen
	*h.rulesSeen = len(view.UserWords)
	trigger, ok := policies.HandoffRule(when, view)
	if !ok {
		return false, nil
	}
	to, _, err := h.HandOff(ctx, Ask{Trigger: TriggerRule, Reason: trigger.Reason, Summary: trigger.Why,
		Suggested: "take the task on from where it stands"})
	if err != nil {
		return true, err
	}
	if to == "" {
		*h.rulesSpent = true
		return false, nil
	}
	return true, h.host.ContinueAsNew(ctx)
}

// view reads the trace since the agent took the run over: failed calls
// in a row, model steps in a row in which no call completed, and the
// user's words (the task, then each person's reply, from the whole run).
func (h *Handoffs) view() policies.HandoffView {
	t := h.trace
	v := policies.HandoffView{UserWords: []string{h.host.Task()}}
	since := Last(t) + 1
	var steps []int
	progress := map[int]bool{}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.Kind == signals.KindHuman && n.Status == signals.StatusCompleted {
			var reply signals.ReplyRequest
			h.host.Read(n, "the recorded reply of a person", n.Output, &reply)
			v.UserWords = append(v.UserWords, reply.Text)
		}
		if i < since || n.Status == signals.StatusInvalidated {
			continue
		}
		switch {
		case n.Kind == signals.KindRequest:
			steps = append(steps, n.Step)
		case n.Kind != signals.KindCall || n.Tool == signals.FinalOutputTool || n.Tool == signals.HandoffTool:
		case n.Status == signals.StatusCompleted:
			v.FailuresInARow = 0
			progress[n.Step] = true
		case n.Status == signals.StatusFailed:
			v.FailuresInARow++
		}
	}
	for i := len(steps) - 1; i >= 0 && !progress[steps[i]]; i-- {
		v.StepsWithoutProgress++
	}
	return v
}
