package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/ledger"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// ledger is the stage of the effect ledger (package ledger): every call
// that ran is in the trace with its tool, arguments and result. A write
// re-issued after an edit (or a rollback) invalidated the call that made
// it, or after a message cut the turn that made it short (interrupt), is
// not run twice: the recorded result answers it (the tool's reexecute: reuse, the default),
// or a person decides (reexecute: ask). Reads run again; an idempotent
// tool runs again with the same Idempotency-Key (its key is made of the
// tool and its canonical arguments), so the tool itself answers.
func (p *pipeline) ledger(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage) {
	if !writes(c, tool) {
		p.run(ctx, c, tool, args, 0)
		return
	}
	// Matched by the tool the call names: a fallback that stood in for it
	// then, or stands in now, does not make the same write a new one.
	name := ledgerName(c, tool)
	prior := p.effects.ExecutedWrite(ctx, name, args)
	if prior == nil {
		if u := p.effects.UnverifiedWrite(name, args); u != nil {
			p.again(ctx, c, tool, args, u)
			return
		}
		// The same write tried before and failed (a timeout, say) may have
		// acted all the same: it goes again with that try's key, so a tool
		// that honours Idempotency-Key acts once.
		if tried := p.effects.TriedWrite(name, args); tried != nil {
			c.keyOf = ledger.KeyOf(tried)
		}
		p.run(ctx, c, tool, args, 0)
		return
	}
	if tool.Reexecute == config.ReexecuteAsk {
		p.askReexecute(ctx, c, tool, args, prior)
		return
	}
	p.reuse(ctx, c, tool, args, prior.ID, prior.Output)
}

// ledgerAnswers says whether the ledger will answer this call without a
// person's approval of the call itself: a write that already ran, re-issued
// as it was (reexecute: reuse answers it; ask asks about running it again,
// once). Approving it first would ask for nothing.
func (p *pipeline) ledgerAnswers(ctx workflow.Context, c *stepCall, args json.RawMessage) bool {
	return writes(c, c.tool) && p.effects.ExecutedWrite(ctx, ledgerName(c, c.tool), args) != nil
}

// writes: the call's tool, or the tool that would stand in, has effects.
func writes(c *stepCall, tool config.Tool) bool {
	return tool.Effect == config.EffectWrite || c.tool.Effect == config.EffectWrite
}

// ledgerName is the tool a call is matched by in the ledger: the one the
// call names.
func ledgerName(c *stepCall, tool config.Tool) string {
	if c.tool.Name != "" {
		return c.tool.Name
	}
	return tool.Name
}

// reuse answers a re-issued write with what it returned when it ran (the
// node priorID, whose result is output).
func (p *pipeline) reuse(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, priorID string, output json.RawMessage) {
	if n := p.r.run.node(c.nodeID); n != nil {
		n.Args = args
	}
	p.effects.Reused(c.nodeID, priorID)
	c.resolved = args
	p.settleResult(ctx, c, tool, output, false)
}

// askReexecute holds a re-issued write for a person: approve (or modify,
// replace) runs it again; reject, or no decision within human_timeout,
// answers it with the recorded result, so nothing runs twice unasked.
func (p *pipeline) askReexecute(ctx workflow.Context, c *stepCall, tool config.Tool, args json.RawMessage, prior *Node) {
	priorID := prior.ID
	if n := p.r.run.node(c.nodeID); n != nil {
		n.Args = args
		n.Error = fmt.Sprintf("this exact write already ran as %s: approve runs it again, reject answers it with the recorded result", priorID)
	}
	var outcome person.Outcome
	var waitErr error
	p.async(ctx, func(g workflow.Context) {
		outcome, waitErr = p.r.person().AwaitApproval(g, c.nodeID, tool.Name)
	}, func() {
		if n := p.r.run.node(c.nodeID); n != nil {
			n.Error = ""
		}
		switch {
		case waitErr != nil:
			p.fail(ctx, c, errorText(waitErr), policies.Canceled)
		case outcome.Interrupted:
			p.failNotRun(ctx, c, p.r.life.Stops())
		case outcome.TimedOut || outcome.Decision.Decision == signals.DecisionReject:
			decision := "timeout"
			if !outcome.TimedOut {
				decision = signals.DecisionReject
			}
			p.r.addNode(ctx, Node{Node: signals.Node{
				Kind: signals.KindApproval, Status: signals.StatusCompleted, Parents: []string{c.nodeID}, Tool: tool.Name,
				Output: mustJSON(map[string]any{"decision": decision, "reused_from": priorID}),
			}, Step: p.r.run.Step})
			if prior := p.r.run.node(priorID); prior != nil {
				p.reuse(ctx, c, tool, args, prior.ID, prior.Output)
			}
		default:
			if n := p.r.run.node(c.nodeID); n != nil {
				args = n.Args
			}
			tool, decided, problem := p.r.person().Decide(ctx, c.nodeID, tool, args, outcome)
			if problem != "" {
				p.fail(ctx, c, problem, policies.Refused)
				return
			}
			c.resolved = decided
			p.effects.AnsweredFor(priorID) // a person had it run again
			p.run(ctx, c, tool, decided, 0)
		}
	})
}
