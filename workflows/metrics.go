package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/workflows/budget"
	"github.com/unstuck-dev/unstuck/workflows/mend"
	"github.com/unstuck-dev/unstuck/workflows/person"
)

// The agent's own counters, emitted through workflow.GetMetricsHandler:
// the SDK drops what a workflow emits while it replays, so each event is
// counted once however often its history is replayed, and emitting one
// records nothing in the history (no command, no version marker). With
// the worker's --metrics-listen they are exposed for Prometheus with a
// _total suffix (unstuck_loops_detected_total, ...), beside the SDK's own
// tags (namespace, task_queue, workflow_type). Tags stay few-valued: an
// agent name, a rung, a rule, never an id.
const (
	// MetricLoopsDetected counts loops the detector reported; tag kind.
	MetricLoopsDetected = "unstuck_loops_detected"
	// MetricRungsTaken counts escalation rungs taken; tag rung.
	MetricRungsTaken = "unstuck_rungs_taken"
	// MetricRepairs counts argument repairs made by rule; tag rule (the
	// repair strategy, e.g. coerce_type).
	MetricRepairs = mend.MetricRepairs
	// MetricUnverified counts the calls that failed their check (tags tool
	// and check: result_schema, verify or read_back).
	MetricUnverified = "unstuck_calls_unverified"
	// MetricRepairsByModel counts focused model repair requests; tag
	// outcome: repaired, refused (the model's arguments still fail the
	// schema) or failed (no answer).
	MetricRepairsByModel = mend.MetricRepairsByModel
	// MetricApprovals counts approval decisions; tag decision (approve,
	// reject, modify, replace, timeout). The waits for a person count them
	// (workflows/person).
	MetricApprovals = person.MetricApprovals
	// MetricApprovalsPastHalf counts calls that waited past half their
	// approval's own timeout (approval: {timeout}), once a wait; tag
	// tool. MetricApprovalsEscalated counts deadlines that asked the next
	// group (then: escalate); tag tool.
	MetricApprovalsPastHalf  = person.MetricApprovalsPastHalf
	MetricApprovalsEscalated = person.MetricApprovalsEscalated
	// MetricOutageWaits counts calls that began to wait out an outage of
	// their tool (phase waiting_outage), once a call however often it
	// probes; tag tool.
	MetricOutageWaits = "unstuck_outage_waits"
	// MetricModelOutageWaits counts runs that began to wait out an outage
	// of their model and every fallback (phase waiting_outage), once an
	// outage however often they probe; tag model (the agent's own).
	MetricModelOutageWaits = "unstuck_model_outage_waits"
	// MetricEdits counts edits and forks recorded in the trace.
	MetricEdits = "unstuck_edits"
	// MetricHandoffs counts handoffs; tags outcome (taken, refused) and
	// trigger (tool, message, ladder, rule, return).
	MetricHandoffs = "unstuck_handoffs"
	// MetricModelTokens counts the tokens of the conversation's model
	// requests as the model server reported them; tag direction (input,
	// output).
	MetricModelTokens = "unstuck_model_tokens"
	// MetricModelFallbacks counts model requests turned to a fallback
	// model; tags from and to (model names).
	MetricModelFallbacks = "unstuck_model_fallbacks"
	// MetricCompactions counts conversations compacted to stay inside the
	// model's token window (policies.context); tag kind: clear (old
	// results cleared), summary (old turns summarized) or none (nothing
	// more could be done: sent as it was).
	MetricCompactions = "unstuck_compactions"
	// MetricSpendModelRequests, MetricSpendToolCalls (tag tool) and
	// MetricSpendCost (millionths of the currency; tag currency) count
	// what runs spend (policies.budget); tokens are MetricModelTokens.
	// The budget counts them (workflows/budget).
	MetricSpendModelRequests = budget.MetricSpendModelRequests
	MetricSpendToolCalls     = budget.MetricSpendToolCalls
	MetricSpendCost          = budget.MetricSpendCost
	// MetricBudgetRungs counts budget rungs taken; tags limit and outcome
	// (raised, stopped, timeout, no_human, interrupted, carried).
	MetricBudgetRungs = budget.MetricBudgetRungs
)

// AgentMetrics are the counters above, for whoever lists them (the
// dashboard's test).
var AgentMetrics = []string{
	MetricLoopsDetected, MetricRungsTaken, MetricRepairs, MetricRepairsByModel,
	MetricApprovals, MetricEdits, MetricHandoffs, MetricModelTokens,
	MetricModelFallbacks, MetricCompactions,
	MetricSpendModelRequests, MetricSpendToolCalls, MetricSpendCost, MetricBudgetRungs,
}

// count adds n to a counter, tagged with the run's agent and the given
// key, value pairs.
func (r *runner) count(ctx workflow.Context, name string, n int64, keyValues ...string) {
	tags := map[string]string{"agent": ""}
	if r.run.Spec != nil {
		tags["agent"] = r.run.Spec.Agent.Name
	}
	for i := 0; i+1 < len(keyValues); i += 2 {
		tags[keyValues[i]] = keyValues[i+1]
	}
	workflow.GetMetricsHandler(ctx).WithTags(tags).Counter(name).Inc(n)
}

// countTokens counts a model reply's tokens.
func (r *runner) countTokens(ctx workflow.Context, reply activities.ModelReply) {
	if reply.InputTokens > 0 {
		r.count(ctx, MetricModelTokens, int64(reply.InputTokens), "direction", "input")
	}
	if reply.OutputTokens > 0 {
		r.count(ctx, MetricModelTokens, int64(reply.OutputTokens), "direction", "output")
	}
}
