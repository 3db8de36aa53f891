package budget

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// rung records the crossing and waits for a person's decision when the
// agent's ladder has a human rung, else stops the run. nil: the budget
// was raised, and the caller checks again. Paused(Interrupted): an edit
// or a person's handoff came first; Paused(Switching): the run continues
// as new while it waits (carry), and the next generation waits at the
// same node.
func (b *Budget) rung(ctx workflow.Context, parent string, carry bool, cross policies.Crossing) error {
	h := b.host
	reason := "budget: " + cross.Why()
	outcome := "no_human"
	defer func() { h.Count(ctx, MetricBudgetRungs, 1, "limit", cross.Limit, "outcome", outcome) }()
	if !slices.Contains(h.Spec().Agent.Policies.Escalation, config.RungHuman) {
		node := b.node(ctx, parent, cross)
		h.FinishNode(ctx, node, nil, reason+"; the agent's ladder has no human rung to raise it")
		return h.Stop(ctx, reason)
	}
	waits := h.Gate(ctx, GateWait)
	w := b.held(ctx, cross)
	if w == nil {
		w = &wait{nodeID: b.node(ctx, parent, cross), cross: cross, waits: waits, carried: waits && carry}
	}
	b.hold.wait = w
	held := false
	defer func() {
		if !held {
			b.endWait(w)
		}
	}()
	if err := h.SetPhase(ctx, signals.PhaseAwaitingHuman); err != nil {
		return err
	}
	// A wait carried from an earlier generation keeps its deadline.
	end, err := h.Wait(ctx, person.Wait{
		Node: w.nodeID, Summary: "wait for a person's budget decision (" + w.nodeID + ")",
		Answered: func() bool { return w.decision != nil },
		Edits:    waits, Switches: w.carried, WholeTimeout: !waits,
	})
	if err != nil {
		return err
	}
	switch end {
	case person.Interrupted:
		outcome = "interrupted"
		h.FinishNode(ctx, w.nodeID, nil, "not decided: "+h.InterruptedWhile())
		return errors.Join(h.Paused(person.Interrupted), b.afterWait(ctx, waits))
	case person.Switching:
		outcome, held, w.held = "carried", true, true
		return h.Paused(person.Switching)
	}
	if end == person.TimedOut {
		outcome = "timeout"
		limit := h.HumanTimeout()
		h.FinishNode(ctx, w.nodeID, nil, fmt.Sprintf("no budget decision within human_timeout (%s)", limit))
		return h.Stop(ctx, reason+fmt.Sprintf("; no decision within human_timeout (%s)", limit))
	}
	outcome = b.decide(ctx, w)
	if w.decision.Stop {
		return h.Stop(ctx, reason+"; stopped by "+orSomeone(w.decision.By))
	}
	return b.afterWait(ctx, waits)
}

// decide settles a budget node with the person's decision, and answers
// the metric's outcome: a raise is added to the run's raises; a stop is
// the caller's to carry out.
func (b *Budget) decide(ctx workflow.Context, w *wait) string {
	b.host.FinishNode(ctx, w.nodeID, w.decision, "")
	if w.decision.Stop {
		return "stopped"
	}
	b.spent.Raised = b.spent.Raised.Raise(raiseLimits(*w.decision.Raise))
	return "raised"
}

// takeHeldDecision carries out a decision that reached a budget wait
// carried from the generation before, before the run checks its budget
// again: a raise counts, a stop stops the run, whatever limit the next
// check would meet (wall time grows while a person decides).
func (b *Budget) takeHeldDecision(ctx workflow.Context) error {
	w := b.hold.wait
	if w == nil || !w.held || w.decision == nil || b.host.Switching() {
		return nil
	}
	b.endWait(w)
	outcome := b.decide(ctx, w)
	b.host.Count(ctx, MetricBudgetRungs, 1, "limit", w.cross.Limit, "outcome", outcome)
	if w.decision.Stop {
		return b.host.Stop(ctx, "budget: "+w.cross.Why()+"; stopped by "+orSomeone(w.decision.By))
	}
	return nil
}

// node records a crossing in the trace: a budget node, pending until a
// person decides; it answers the node's id.
func (b *Budget) node(ctx workflow.Context, parent string, cross policies.Crossing) string {
	all, _ := b.spending()
	return b.host.AddNode(ctx, parent, map[string]any{"crossing": cross, "why": cross.Why(), "spend": b.status(ctx, all)})
}

// afterWait puts the phase back once a budget rung's wait ended:
// awaiting_approval while calls of the step still wait for a person
// (GateWait), else running.
func (b *Budget) afterWait(ctx workflow.Context, waits bool) error {
	if waits {
		return b.host.ApprovalPhase(ctx)
	}
	return b.host.SetPhase(ctx, signals.PhaseRunning)
}

// held is the budget wait carried from the generation before, when it
// waits for the same limit: the wait goes on at its node, with its
// deadline. One for another limit is settled: the run no longer waits
// there (a decision sent to it was taken before: takeHeldDecision).
func (b *Budget) held(ctx workflow.Context, cross policies.Crossing) *wait {
	w := b.hold.wait
	if w == nil || !w.held {
		return nil
	}
	if w.cross.Limit != cross.Limit || w.cross.Tool != cross.Tool {
		b.Drop(ctx, notWaited)
		return nil
	}
	w.held, w.cross = false, cross
	return w
}

// Sent ends a held budget wait once its request was sent: the run no
// longer waits at that limit.
func (b *Budget) Sent(ctx workflow.Context) { b.Drop(ctx, notWaited) }

// Drop settles a held budget wait the run no longer needs, and says why
// (notWaited, for one carried from the generation before whose request
// was sent or that another limit replaced; an edit's words when an edit
// takes the run that was about to carry it).
func (b *Budget) Drop(ctx workflow.Context, why string) {
	if w := b.hold.wait; w != nil && w.held && !b.host.Switching() {
		b.host.FinishNode(ctx, w.nodeID, nil, why)
		b.endWait(w)
	}
}

// notWaited is why a carried budget wait ended undecided.
const notWaited = "not decided: the run no longer waits at this limit"

// endWait forgets budget wait w: nothing waits at its node now.
func (b *Budget) endWait(w *wait) {
	b.hold.wait = nil
	b.host.Forget(w.nodeID)
}

// raiseLimits is a person's raise in the budget's units.
func raiseLimits(raise signals.BudgetRaise) policies.Limits {
	wall, _ := time.ParseDuration(raise.WallTime) // validated: "" or positive
	return policies.Limits{
		ModelRequests: raise.ModelRequests, ToolCalls: raise.ToolCalls,
		InputTokens: raise.InputTokens, OutputTokens: raise.OutputTokens,
		CostPicos: config.Picos(raise.Cost), WallTime: wall, ToolCallsBy: raise.ToolCallsPerTool,
	}
}

func orSomeone(by string) string {
	if by == "" {
		return "a person"
	}
	return by
}
