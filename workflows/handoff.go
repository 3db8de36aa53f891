package workflows

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/life"
)

// A handoff passes the run, with its whole context, to the agent best
// placed to finish it. Whatever asks for it (the model's handoff tool, a
// person's handoff message, the ladder's handoff rung, the agent's rules,
// a person handing a run back), it goes the same way: a handoff node,
// the agents' live load read by an activity (so the choice replays),
// policies.ChooseHandoff, and the first candidate the worker can resolve
// takes the run over; the run then continues as new as that agent.

// Handoff triggers, as the handoff node records them.
const (
	triggerTool    = "tool"
	triggerMessage = "message"
	triggerLadder  = "ladder"
	triggerRule    = "rule"
	triggerReturn  = "return"
)

// handoffAsk is a handoff as its trigger asks for it.
type handoffAsk struct {
	Trigger   string `json:"trigger"`
	To        string `json:"to,omitempty"`
	Reason    string `json:"reason"`
	Summary   string `json:"summary,omitempty"`
	Suggested string `json:"suggested_next_action,omitempty"`
	// Audit is a person's who and why (their reason is not the handoff's).
	signals.Audit `json:"audit,omitempty"`
	// parents of the handoff node (default: the frontier).
	parents []string
}

// registryWindow is how far back an agent's success rate is read.
const registryWindow = 24 * time.Hour

// handoffsOn says whether this run's agent hands over (and, of kind
// human, waits for a person): runs recorded before handoffs existed did
// neither. Asked only for an agent that can hand over.
func (r *runner) handoffsOn(ctx workflow.Context) bool {
	if !r.run.Spec.Agent.CanHandOff() || r.run.startedBeforeHandoffs() {
		return false
	}
	return versionOf(ctx, versionHandoff, 1) >= 1
}

// startedBeforeHandoffs says the run was started by a version of unstuck
// before handoffs (93ddf9d and earlier): its agent names handoffs or is of
// kind human, yet the resolved spec has no registry (this code always
// gives such an agent one). Such a run does in every generation what it
// did when it started: no handoff, and a kind: human agent runs as a model
// agent. Its first generation's replay would say so too (the version
// handoff is not in its history), but the runs it continues into start on
// this code, and must not change under it.
func (run *Run) startedBeforeHandoffs() bool {
	return run.Spec.Agent.CanHandOff() && len(run.Spec.Registry) == 0
}

// handoffPath is every agent the run has been with, in order, its agent
// now last.
func (run *Run) handoffPath() []string {
	if len(run.HandoffPath) == 0 {
		return []string{run.Spec.Agent.Name}
	}
	return slices.Clone(run.HandoffPath)
}

// targetRefused says why a handoff may not name to (nil when it may, or
// when it names nobody and leaves the choice to the run).
func (r *runner) targetRefused(to string) error {
	a := r.run.Spec.Agent
	if !a.CanHandOff() {
		return fmt.Errorf("handoff: agent %s has no handoffs: it cannot hand a run over (its config names no targets)", a.Name)
	}
	if to == "" {
		return nil
	}
	if to == config.HandoffHuman {
		for _, p := range r.run.Spec.Registry {
			if p.Human() && allowsTarget(a.HandoffTargets(), p) {
				return nil
			}
		}
		return fmt.Errorf("handoff: %q names any person, and agent %s may hand over to none (its handoffs: %s)", to, a.Name, strings.Join(a.HandoffTargets(), ", "))
	}
	if to == a.Name {
		return fmt.Errorf("handoff: %q is the agent the run is with: name another agent", to)
	}
	p, ok := r.run.Spec.Peer(to)
	if !ok {
		var names []string
		for _, p := range r.run.Spec.Registry {
			if p.Name != a.Name {
				names = append(names, p.Name)
			}
		}
		return fmt.Errorf("handoff: unknown agent %q (agents: %s)", to, strings.Join(names, ", "))
	}
	if !allowsTarget(a.HandoffTargets(), p) {
		return fmt.Errorf("handoff: agent %s may hand over to %s only, not to %q", a.Name, strings.Join(a.HandoffTargets(), ", "), to)
	}
	return nil
}

// allowsTarget applies an agent's handoffs to a peer.
func allowsTarget(handoffs []string, p config.Peer) bool {
	for _, h := range handoffs {
		if h == config.HandoffAny || h == p.Name || (h == config.HandoffHuman && p.Human()) {
			return true
		}
	}
	return false
}

// handoffWanted says whether a person's handoff can be taken now.
func (r *runner) handoffWanted(req signals.HandoffRequest) error {
	switch {
	case r.run.startedBeforeHandoffs():
		return fmt.Errorf("handoff: this run was started before handoffs existed (by an earlier version of unstuck), so it cannot be handed over; "+
			"it goes on with agent %s: start a new run to hand the task over", r.run.Spec.Agent.Name)
	case r.life.Accepted() == life.Handoff:
		return fmt.Errorf("handoff: a handoff is already under way; the run goes on in generation %d: send it again then", r.run.Generation+1)
	case r.life.Accepted() == life.Edit:
		return fmt.Errorf("handoff: an edit of %s is being applied; send the handoff again in a moment", r.edit().Applying())
	case r.life.Closing():
		return fmt.Errorf("handoff: the run is closing (it finishes, or continues as new into generation %d): send it again in a moment", r.run.Generation+1)
	}
	return r.targetRefused(req.To)
}

// handOff carries out a handoff: it records the handoff node, reads the
// agents' load, ranks the candidates and hands the run to the first the
// worker resolves (takeOver). It answers who took the run ("" when no one
// could: the node is failed with every refusal) and the update's answer;
// err only for a cancelled run.
func (r *runner) handOff(ctx workflow.Context, ask handoffAsk) (string, signals.HandoffResult, error) {
	run := r.run
	from := run.Spec.Agent.Name
	path := run.handoffPath()
	parents := ask.parents
	if parents == nil {
		parents = run.Frontier
	}
	node := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindHandoff, Status: signals.StatusPending, Parents: parents,
		Args: mustJSON(ask), From: from, Reason: ask.Reason, By: ask.By,
	}, Step: run.Step})
	id := node.ID
	live(r.life.HandOver(handoffTargetText(ask.To)))
	var ranked []string
	var refused []signals.HandoffRefusal
	var note string
	if ask.Trigger == triggerReturn {
		ranked = []string{ask.To} // back to the agent that handed the run over
	} else {
		named := ask.To
		if named == config.HandoffHuman {
			named = "" // any person: ranked as usual, then only people kept
		}
		hask := policies.HandoffAsk{
			From: from, Allowed: run.Spec.Agent.HandoffTargets(), Path: path, To: named,
			Reason: ask.Reason, Summary: ask.Summary, SuggestedAction: ask.Suggested,
		}
		var candidates []policies.HandoffCandidate
		candidates, note = r.handoffCandidates(ctx, hask)
		if ctx.Err() != nil {
			return "", signals.HandoffResult{}, r.cancelled(ctx, id)
		}
		if note != "" {
			r.run.node(id).Output = mustJSON(map[string]string{"note": note})
		}
		choice := policies.ChooseHandoff(hask, candidates)
		for _, name := range choice.Ranked {
			if p, _ := run.Spec.Peer(name); ask.To == config.HandoffHuman && !p.Human() {
				choice.Refused = append(choice.Refused, policies.HandoffRefusal{Agent: name, Why: `not a person (the handoff asked for "human")`})
				continue
			}
			ranked = append(ranked, name)
		}
		// Many refusals for one reason (agents not in the handoffs, model
		// agents when a person was asked for) are folded into a count
		// (version handoff-refusals, asked only then).
		if c := policies.CompactRefusals(choice.Refused, maxRefusalsPerReason); len(c) < len(choice.Refused) && versionOf(ctx, versionHandoffRefusals, 1) >= 1 {
			choice.Refused = c
		}
		for _, f := range choice.Refused {
			refused = append(refused, signals.HandoffRefusal{Agent: f.Agent, Why: f.Why})
		}
	}
	for _, to := range ranked {
		live(r.life.HandOver(to))
		spec, err := resolveAgent(ctx, to, "resolve agent "+to+" to take over")
		if cancelled(ctx, err) {
			return "", signals.HandoffResult{}, r.cancelled(ctx, id)
		}
		if err != nil {
			refused = append(refused, signals.HandoffRefusal{Agent: to, Why: "the worker cannot take it on: " + errorText(err)})
			continue
		}
		r.count(ctx, MetricHandoffs, 1, "outcome", "taken", "trigger", ask.Trigger) // before: the agent tag is the one handing over
		if err := r.takeOver(ctx, id, spec, ask, refused, note); err != nil {
			return "", signals.HandoffResult{}, err
		}
		return to, signals.HandoffResult{NodeID: id, To: to, Refused: refused, HandoffPath: run.HandoffPath}, nil
	}
	live(r.life.HandOverRefused()) // the run goes on with its agent, or stops
	r.count(ctx, MetricHandoffs, 1, "outcome", "refused", "trigger", ask.Trigger)
	n := run.node(id)
	n.Status, n.Refused, n.At = signals.StatusFailed, refused, workflow.Now(ctx).UTC()
	n.Error = "no agent can take the run" + describeRefusals(refused)
	run.LastError = n.Error
	return "", signals.HandoffResult{NodeID: id, Refused: refused, HandoffPath: path}, nil
}

// maxRefusalsPerReason is how many refusals of one reason a handoff node
// names before it counts the rest.
const maxRefusalsPerReason = 3

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

// handoffCandidates is the registry with the live load and success rate
// of each agent the choice may weigh them for (policies.NeedsLoad), read
// by an activity; the others are refused before their figures count.
// Without figures (no visibility, the server busy) the choice goes on
// without them, and note says so.
func (r *runner) handoffCandidates(ctx workflow.Context, ask policies.HandoffAsk) ([]policies.HandoffCandidate, string) {
	var all, names []string
	for _, p := range r.run.Spec.Registry {
		all = append(all, p.Name)
		if policies.NeedsLoad(ask, policies.HandoffCandidate{Name: p.Name, Human: p.Human()}) {
			names = append(names, p.Name)
		}
	}
	// The activity's input changes: version handoff-loads, asked only
	// when the lists differ.
	if len(names) < len(all) && versionOf(ctx, versionHandoffLoads, 1) < 1 {
		names = all
	}
	var loads []activities.AgentLoad
	req := activities.RegistryRequest{Agents: names, Window: registryWindow, Namespace: workflow.GetInfo(ctx).Namespace}
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, withSummary(registryOptions(), "read the agents' load for a handoff")), acts.ReadRegistry, req).Get(ctx, &loads)
	note := ""
	if err != nil && len(names) > 0 {
		note = "the agents' load could not be read, so capacity and success rates were not weighed: " + errorText(err)
	}
	byName := map[string]activities.AgentLoad{}
	for _, l := range loads {
		byName[l.Agent] = l
	}
	out := make([]policies.HandoffCandidate, 0, len(r.run.Spec.Registry))
	for _, p := range r.run.Spec.Registry {
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
func (r *runner) takeOver(ctx workflow.Context, id string, spec *config.Resolved, ask handoffAsk, refused []signals.HandoffRefusal, note string) error {
	run := r.run
	path := append(run.handoffPath(), spec.Agent.Name)
	// A run handed over before carries the earlier context in its
	// conversation: version handoff-flat leaves it out (asked only then).
	flat := run.lastHandoff() >= 0 && versionOf(ctx, versionHandoffFlat, 1) >= 1
	run.undecoded = nil
	hc := newHandoffContext(run, workflow.GetInfo(ctx).WorkflowExecution.ID, ask.Reason, ask.Summary, ask.Suggested, flat)
	if err := r.stopUndecodable(ctx, run.undecoded); err != nil {
		return err
	}
	hc.HandoffPath = path
	hc.Metadata["trigger"] = ask.Trigger
	if note != "" {
		hc.Metadata["note"] = note // the load could not be read
	}
	n := run.node(id)
	n.Status, n.To, n.Refused, n.At = signals.StatusCompleted, spec.Agent.Name, refused, workflow.Now(ctx).UTC()
	n.Output = mustJSON(fitHandoffContext(hc))
	// What was under way when the run was handed over will not run.
	run.Trace.HandedOver(id, spec.Agent.Name, n.At)
	run.Spec = spec
	run.HandoffPath = path
	run.AgentSince = run.Step
	run.LoopEscape.HandedOver()
	run.GraphWalk = GraphWalk{}
	run.sendWhole()
	run.Fitted = false
	run.OutputFailures = 0
	run.Resume = nil
	run.RulesSpent = false
	// A person raised the budget of the agent before: the next agent's
	// budget is its own (the spend goes on).
	run.Spending.NewAgent()
	return nil
}

// lastHandoff is the index in the trace of the handoff that gave the run
// to its agent now (-1 when it never changed hands): the conversation
// starts again there, and nothing before it can be edited.
func (run *Run) lastHandoff() int {
	for i := len(run.Nodes) - 1; i >= 0; i-- {
		n := &run.Nodes[i]
		if n.Kind == signals.KindHandoff && n.Status == signals.StatusCompleted {
			return i
		}
	}
	return -1
}

// nodeIndex is a node's place in the trace (-1 when it is not there).
func (run *Run) nodeIndex(id string) int { return run.Index(id) }

// handoffTargets counts the agents the run may still be handed to: allowed
// by the agent's handoffs and not yet in its handoff path (the ladder's
// handoff rung needs one).
func (r *runner) handoffTargets() int {
	path := r.run.handoffPath()
	n := 0
	for _, p := range r.run.Spec.Registry {
		if !slices.Contains(path, p.Name) && allowsTarget(r.run.Spec.Agent.HandoffTargets(), p) {
			n++
		}
	}
	return n
}
