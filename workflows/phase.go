package workflows

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// Search attribute keys the workflow keeps up to date, so runs can be
// listed by agent and phase (temporal workflow list --query ...).
var (
	AgentNameKey  = temporal.NewSearchAttributeKeyKeyword(signals.AttrAgentName)
	AgentPhaseKey = temporal.NewSearchAttributeKeyKeyword(signals.AttrAgentPhase)
)

// setPhase records the run's phase in the run and in the search attributes.
// Search attributes that already say so (set by the starter, carried
// across continue-as-new, or upserted before) are not upserted again: each
// upsert is a visibility write on the server.
func (r *runner) setPhase(ctx workflow.Context, phase signals.Phase) error {
	if phase == signals.PhaseRunning && r.parked.Status() != nil && versionOf(ctx, versionOutagePhase, 1) >= 1 {
		phase = signals.PhaseWaitingOutage // a call still waits out an outage once a person's wait ends
	}
	r.run.Phase = phase
	r.showDetails(ctx)
	name := keyword(r.run.Spec.Agent.Name)
	if phaseShown(ctx, name, phase) && versionOf(ctx, versionPhaseShown, 1) >= 1 {
		return nil
	}
	return workflow.UpsertTypedSearchAttributes(ctx,
		AgentNameKey.ValueSet(name),
		AgentPhaseKey.ValueSet(string(phase)),
	)
}

// phaseShown: the run's search attributes already name the agent and the
// phase.
func phaseShown(ctx workflow.Context, agent string, phase signals.Phase) bool {
	sa := workflow.GetTypedSearchAttributes(ctx)
	name, okName := sa.GetKeyword(AgentNameKey)
	shown, okPhase := sa.GetKeyword(AgentPhaseKey)
	return okName && okPhase && name == agent && shown == string(phase)
}

// StartAttributes are the search attributes a starter sets on a new run of
// agent, so the run need not upsert them in its first workflow task: the
// agent's name, and the phase a run starts in.
func StartAttributes(agent string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		AgentNameKey.ValueSet(keyword(agent)),
		AgentPhaseKey.ValueSet(string(signals.PhaseRunning)),
	)
}

// markRefused lists a run refused at start (bad input, unknown agent)
// under the agent it named, as stopped, so `AgentPhase = 'stopped'` finds
// it too.
func markRefused(ctx workflow.Context, agent string) {
	if strings.TrimSpace(agent) == "" {
		return
	}
	_ = workflow.UpsertTypedSearchAttributes(ctx,
		AgentNameKey.ValueSet(keyword(agent)),
		AgentPhaseKey.ValueSet(string(signals.PhaseStopped)),
	)
}

// keyword bounds a search attribute value: the server refuses long ones,
// and a refused upsert would fail every workflow task of the run.
func keyword(s string) string {
	return policies.CutText(s, 255)
}

// maxDetailsApprovals is how many pending approvals the current details
// list one by one; the rest are counted.
const maxDetailsApprovals = 8

// showDetails sets the run's current details, the markdown the Temporal
// Web UI shows (and the __temporal_workflow_metadata query answers): the
// phase, the step, the calls waiting for approval and how to answer them,
// the last loop and the rung taken. It is kept in the worker's memory, not
// in history, so it may be set as often as the run changes; the memo of
// the calls waiting (showWaiting) is upserted only when they change.
func (r *runner) showDetails(ctx workflow.Context) {
	r.seenAt = workflow.Now(ctx)
	r.budget().Born(ctx)
	approvals, reply := r.person().PendingApprovals(r.seenAt), r.person().PendingReply(r.seenAt)
	workflow.SetCurrentDetails(ctx, r.currentDetails(workflow.GetInfo(ctx).WorkflowExecution.ID, approvals, reply))
	r.showWaiting(ctx, approvals)
}

// currentDetails is the markdown of showDetails for the run of workflow id,
// waiting for the approvals and the reply given (as of r.seenAt).
func (r *runner) currentDetails(id string, pending []signals.PendingApproval, reply *signals.PendingReply) string {
	var b strings.Builder
	run := r.run
	agent := ""
	if run.Spec != nil {
		agent = run.Spec.Agent.Name
	}
	fmt.Fprintf(&b, "**phase:** `%s` · **step:** %d · **agent:** `%s`\n", run.Phase, run.Step, agent)
	if len(pending) > 0 {
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
		if reply != nil && len(reply.Answering) > 0 {
			// Its approval names who may answer: a plain update is refused.
			fmt.Fprintf(&b, "\n**waiting for a signed reply** (`%s`) from a member of %s. Answer:\n```\nunstuck reply %s --text \"...\" --as NAME --key FILE\n```\n",
				reply.NodeID, strings.Join(reply.Answering, ", "), id)
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

// maxMemoCalls and maxMemoArgs bound the memo of calls waiting: a
// visibility record stays small, and the inbox reads the status of a run
// with more calls waiting than listed.
const (
	maxMemoCalls = 16
	maxMemoArgs  = 256
)

// waitingMemo lists pending for the memo: each call's shape, its
// arguments when small.
func waitingMemo(pending []signals.PendingApproval) signals.WaitingMemo {
	m := signals.WaitingMemo{Calls: []signals.WaitingCall{}}
	for i, p := range pending {
		if i == maxMemoCalls {
			m.More = len(pending) - i
			break
		}
		c := signals.WaitingCall{CallID: p.CallID, Tool: p.Tool, Shape: policies.ArgShape(p.Args), Since: p.WaitingSince, Deadline: p.Deadline, Answering: p.Answering}
		if len(p.Args) <= maxMemoArgs {
			c.Args = p.Args
		}
		m.Calls = append(m.Calls, c)
	}
	return m
}

// showWaiting keeps the run's memo MemoWaiting listing the calls waiting
// for approval, upserted when they change (version inbox-memo). A run
// whose last wait ended keeps its last list: the inbox lists only runs in
// phase awaiting_approval, and the next wait writes a new list, so the
// end of a wait costs no event.
func (r *runner) showWaiting(ctx workflow.Context, pending []signals.PendingApproval) {
	if len(pending) == 0 {
		return
	}
	memo := waitingMemo(pending)
	b, err := json.Marshal(memo)
	if err != nil || string(b) == r.waitingShown {
		return
	}
	if versionOf(ctx, versionInboxMemo, 1) < 1 {
		return
	}
	if err := workflow.UpsertMemo(ctx, map[string]any{signals.MemoWaiting: memo}); err != nil {
		workflow.GetLogger(ctx).Warn("the memo of calls waiting was not upserted", "error", err)
		return
	}
	r.waitingShown = string(b)
}
