package handoff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/unstuck-dev/unstuck/config"
)

// startedBefore says the run was started by a version of unstuck before
// handoffs (93ddf9d and earlier): its agent names handoffs or is of kind
// human, yet the resolved spec has no registry (this code always gives
// such an agent one). Such a run does in every generation what it did
// when it started: no handoff, and a kind: human agent runs as a model
// agent. Its first generation's replay would say so too (the version
// handoff is not in its history), but the runs it continues into start on
// this code, and must not change under it.
func startedBefore(spec *config.Resolved) bool {
	return spec.Agent.CanHandOff() && len(spec.Registry) == 0
}

// refusedTarget says why a handoff of spec's agent may not name to (nil
// when it may, or when it names nobody and leaves the choice to the run).
func refusedTarget(spec *config.Resolved, to string) error {
	a := spec.Agent
	if !a.CanHandOff() {
		return fmt.Errorf("handoff: agent %s has no handoffs: it cannot hand a run over (its config names no targets)", a.Name)
	}
	if to == "" {
		return nil
	}
	if to == config.HandoffHuman {
		for _, p := range spec.Registry {
			if p.Human() && allows(a.HandoffTargets(), p) {
				return nil
			}
		}
		return fmt.Errorf("handoff: %q names any person, and agent %s may hand over to none (its handoffs: %s)", to, a.Name, strings.Join(a.HandoffTargets(), ", "))
	}
	if to == a.Name {
		return fmt.Errorf("handoff: %q is the agent the run is with: name another agent", to)
	}
	p, ok := spec.Peer(to)
	if !ok {
		var names []string
		for _, p := range spec.Registry {
			if p.Name != a.Name {
				names = append(names, p.Name)
			}
		}
		return fmt.Errorf("handoff: unknown agent %q (agents: %s)", to, strings.Join(names, ", "))
	}
	if !allows(a.HandoffTargets(), p) {
		return fmt.Errorf("handoff: agent %s may hand over to %s only, not to %q", a.Name, strings.Join(a.HandoffTargets(), ", "), to)
	}
	return nil
}

// allows applies an agent's handoffs to a peer.
func allows(handoffs []string, p config.Peer) bool {
	for _, h := range handoffs {
		if h == config.HandoffAny || h == p.Name || (h == config.HandoffHuman && p.Human()) {
			return true
		}
	}
	return false
}

// Targets counts the agents the run may still be handed to: allowed by
// the agent's handoffs and not yet in its handoff path (the ladder's
// handoff rung needs one).
func (h *Handoffs) Targets() int {
	spec := h.host.Spec()
	path := h.pathNow()
	n := 0
	for _, p := range spec.Registry {
		if !slices.Contains(path, p.Name) && allows(spec.Agent.HandoffTargets(), p) {
			n++
		}
	}
	return n
}

// targetText names the target of a handoff before one is chosen.
func targetText(to string) string {
	switch to {
	case "":
		return "the best-placed agent"
	case config.HandoffHuman:
		return "a person"
	}
	return to
}
