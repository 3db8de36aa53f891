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

// maxDetailsApprovals is how many pending approvals the current details
// list one by one; the rest are counted.
const maxDetailsApprovals = 8

// showDetails sets the run's current details, the markdown the Temporal
// Web UI shows (and the __temporal_workflow_metadata query answers): the
// phase, the step, the calls waiting for approval and how to answer them,
// the last loop and the rung taken. It is kept in the worker's memory, not
// in history, so it may be set as often as the run changes.
func (r *runner) showDetails(ctx workflow.Context) {
	r.seenAt = workflow.Now(ctx)
	if r.run != nil {
		r.budget().Born(ctx)
	}
	workflow.SetCurrentDetails(ctx, r.currentDetails(workflow.GetInfo(ctx).WorkflowExecution.ID))
	if r.run != nil {
		r.showWaiting(ctx)
	}
}

// currentDetails is the markdown of showDetails for the run of workflow id.
func (r *runner) currentDetails(id string) string {
	var b strings.Builder
	run := r.run
	agent := ""
	if run.Spec != nil {
		agent = run.Spec.Agent.Name
	}
	fmt.Fprintf(&b, "**phase:** `%s` · **step:** %d · **agent:** `%s`\n", run.Phase, run.Step, agent)
	if pending := r.person().PendingApprovals(r.seenAt); len(pending) > 0 {
		fmt.Fprintf(&b, "\n**waiting for approval** (%d):\n", len(pending))
		for i, p := range pending {
			if i == maxDetailsApprovals {
				fmt.Fprintf(&b, "- … and %d more (`unstuck status %s`)\n", len(pending)-i, id)
				break
			}
			fmt.Fprintf(&b, "- `%s`: `%s`\n", p.CallID, toolSummary(p.Tool, p.Args))
		}
		fmt.Fprintf(&b, "\nAnswer (decision `approve`, `reject`, `modify` with `args`, or `replace` with `call`):\n```\n%s\n```\n",
			approveCommand(id, pending[0].CallID))
	}
	if r.person().ReplyNode() != "" && run.Phase == signals.PhaseAwaitingHuman {
		if p := r.person().PendingReply(r.seenAt); p != nil && len(p.Answering) > 0 {
			// Its approval names who may answer: a plain update is refused.
			fmt.Fprintf(&b, "\n**waiting for a signed reply** (`%s`) from a member of %s. Answer:\n```\nunstuck reply %s --text \"...\" --as NAME --key FILE\n```\n",
				p.NodeID, strings.Join(p.Answering, ", "), id)
		} else {
			fmt.Fprintf(&b, "\n**waiting for a person's reply** (`%s`). Answer:\n```\ntemporal workflow update execute --workflow-id %s --name %s --input '{\"text\":\"...\"}'\n```\n",
				r.person().ReplyNode(), id, signals.Reply)
		}
	}
	if node := r.budget().Waiting(); node != "" {
		why := ""
		if n := run.node(node); n != nil {
			var args struct{ Why string }
			// Only shown to people (the run's details): a why that does
			// not decode shows as none, and the run goes on.
			_ = json.Unmarshal(n.Args, &args)
			why = args.Why
		}
		fmt.Fprintf(&b, "\n**waiting at the budget rung** (`%s`): %s. Raise the limit, or stop:\n```\ntemporal workflow update execute --workflow-id %s --name %s --input '{\"raise\":{\"tool_calls\":10}}'\ntemporal workflow update execute --workflow-id %s --name %s --input '{\"stop\":true}'\n```\n",
			node, policies.ClipText(why, 300), id, signals.Budget, id, signals.Budget)
	}
	if s := run.Spend; s != nil {
		fmt.Fprintf(&b, "\n**spend:** %d model requests, %d input and %d output tokens, %d tool calls", s.ModelRequests, s.InputTokens, s.OutputTokens, s.ToolCalls)
		if p := run.Spec.Pricing; p != nil {
			fmt.Fprintf(&b, ", %.4f %s", config.Amount(s.CostPicos), p.Currency)
		}
		b.WriteString("\n")
	}
	if n := len(run.Loops); n > 0 {
		l := run.Loops[n-1]
		fmt.Fprintf(&b, "\n**last loop:** %s at `%s`, repeated %d times (%d loops in all)\n", l.Kind, l.At, l.Repeats, n+run.LoopsDropped)
	}
	if n := len(run.Escalations); n > 0 {
		e := run.Escalations[n-1]
		fmt.Fprintf(&b, "\n**last rung:** `%s` at `%s`: %s\n", e.Action, e.At, policies.ClipText(e.Why, 200))
	}
	if run.Unverified > 0 {
		fmt.Fprintf(&b, "\n**unverified calls:** %d (the tool answered, its check failed)\n", run.Unverified)
	}
	if run.LastError != "" {
		fmt.Fprintf(&b, "\n**last error:** %s\n", policies.ClipText(oneLineText(run.LastError), 300))
	}
	return b.String()
}

// approveCommand is the exact temporal CLI line that approves call callID
// of the run of workflow id.
func approveCommand(id, callID string) string {
	return fmt.Sprintf("temporal workflow update execute --workflow-id %s --name %s --input '{\"call_id\":\"%s\",\"decision\":\"%s\"}'",
		id, signals.Approve, callID, signals.DecisionApprove)
}
