package workflows

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// Budgets (policies.budget). The run counts what it spends from what its
// activities report (the provider's usage, or the worker's token count
// where a provider reports none), carried across continue-as-new, edits
// and handoffs. Before a model request or tool call that would cross a
// limit, it takes the budget rung: a person raises the budget or stops
// the run (the "budget" message), or, without a human rung in the agent's
// ladder, the run stops at once with the report. Never after the money
// is spent: a model request is counted at its reply's bound, and its
// prompt is counted by the model activity before it is sent.

// Spending is what the run spent and what people raised its budget by.
type Spending struct {
	Spend   *policies.Spend            `json:"spend,omitempty"`
	SpendBy map[string]*policies.Spend `json:"spend_by,omitempty"`
	Raised  policies.Limits            `json:"raised,omitzero"`
	// BornAt is when the run's first generation started: its wall time
	// counts from there.
	BornAt time.Time `json:"born_at,omitzero"`
}

// defaultReplyTokens bounds a reply whose model's max_output_tokens is
// unknown, for the budget's estimate of a request.
const defaultReplyTokens = 4096

// budgetHold is the budget rung's hold on the run: its wait for a
// person's decision (nil when none), and, once a rung stopped the run,
// the stop, which keeps any other request or call of the run from going
// on.
type budgetHold struct {
	wait *budgetWait
	stop error
}

// stopped is the rung's stop, nil while the run may go on.
func (b *budgetHold) stopped() error { return b.stop }

// carries says whether the rung waits in a wait the run may carry into
// its next generation (a request's).
func (b *budgetHold) carries() bool { return b.wait != nil && b.wait.carried }

// carried is the wait as the next generation takes it (nil when none).
func (b *budgetHold) carried() *carriedBudget {
	if w := b.wait; w != nil {
		return &carriedBudget{Node: w.nodeID, Cross: w.cross, Decision: w.decision}
	}
	return nil
}

// takeCarried puts back a wait carried from the generation before.
func (b *budgetHold) takeCarried(c *carriedBudget) {
	b.wait = &budgetWait{nodeID: c.Node, cross: c.Cross, decision: c.Decision, waits: true, carried: true, held: true}
}

// budgetWait is a budget rung waiting for a person's decision.
type budgetWait struct {
	nodeID   string
	cross    policies.Crossing
	decision *signals.BudgetRequest
	// waits: version budget-wait (an edit ends the wait, a raise must
	// raise the crossed limit). carried: the wait may continue as new with
	// the run, which only a request's may (a call's would carry the step's
	// decided approvals, which are not kept). held: it did, and waits
	// again once the run crosses the same limit.
	waits, carried, held bool
}

// spending is the run's spend, created on first use; the agent's share is
// counted beside it.
func (r *runner) spending() (*policies.Spend, *policies.Spend) {
	if r.run.Spend == nil {
		r.run.Spend = &policies.Spend{}
	}
	if r.run.SpendBy == nil {
		r.run.SpendBy = map[string]*policies.Spend{}
	}
	agent := r.run.Spec.Agent.Name
	if r.run.SpendBy[agent] == nil {
		r.run.SpendBy[agent] = &policies.Spend{}
	}
	return r.run.Spend, r.run.SpendBy[agent]
}

// spendReply counts an answered model request of the model asked, on
// its request node too.
func (r *runner) spendReply(ctx workflow.Context, reqID string, reply activities.ModelReply) {
	r.spendTokens(ctx, reqID, reply.InputTokens, reply.OutputTokens, reply.Estimated)
}

// spendTokens counts a model request's tokens (a reply's, a summary's) on
// node nodeID.
func (r *runner) spendTokens(ctx workflow.Context, nodeID string, input, output int, estimated bool) {
	spend := policies.Reply{InputTokens: int64(input), OutputTokens: int64(output), Estimated: estimated, Price: r.modelPrice()}
	r.count(ctx, MetricSpendModelRequests, 1)
	r.countCost(ctx, spend.InputTokens*spend.Price.Input+spend.OutputTokens*spend.Price.Output)
	r.spendOn(nodeID, func(s *policies.Spend) { s.AddReply(spend) })
}

// spendCall counts a call made to tool, on the call's node too.
func (r *runner) spendCall(ctx workflow.Context, nodeID, tool string) {
	price := r.toolPrice(tool)
	r.count(ctx, MetricSpendToolCalls, 1, "tool", tool)
	r.countCost(ctx, price)
	r.spendOn(nodeID, func(s *policies.Spend) { s.AddCall(tool, price) })
}

// spendOn adds a spend to the run's, its agent's share and node
// nodeID's, the three places a spend is kept.
func (r *runner) spendOn(nodeID string, add func(*policies.Spend)) {
	all, agent := r.spending()
	add(all)
	add(agent)
	if n := r.run.node(nodeID); n != nil {
		if n.Spent == nil {
			n.Spent = &policies.Spend{}
		}
		add(n.Spent)
	}
}

// countCost counts a cost in millionths of the prices' currency.
func (r *runner) countCost(ctx workflow.Context, picos int64) {
	if p := r.run.Spec.Pricing; p != nil && picos > 0 {
		r.count(ctx, MetricSpendCost, (picos+500_000)/1_000_000, "currency", p.Currency)
	}
}

// forkSpending is a fork's spend: what the nodes it keeps cost, by the
// agent that spent it, with archived, those of the trace's archived part
// (startFork left out what the source archived after the fork's node); no
// raise and a new wall time (the fork is a new run). The source's own
// answer is not taken for it.
func forkSpending(run *Run, archived bool) Spending {
	var out Spending
	add := func(agent string, s policies.Spend) {
		if out.Spend == nil {
			out.Spend, out.SpendBy = &policies.Spend{}, map[string]*policies.Spend{}
		}
		if out.SpendBy[agent] == nil {
			out.SpendBy[agent] = &policies.Spend{}
		}
		out.Spend.Add(s)
		out.SpendBy[agent].Add(s)
	}
	if a := run.Archived; a != nil && archived {
		// Added into maps: the order does not matter.
		//workflowcheck:ignore
		for agent, s := range a.Spent {
			add(agent, *s)
		}
		for _, n := range a.SpentAfter {
			add(n.Agent, n.Spent)
		}
	}
	for i := range run.Nodes {
		if n := &run.Nodes[i]; n.Spent != nil {
			add(n.Agent, *n.Spent)
		}
	}
	return out
}

// keepsArchivedSpend says whether a fork counts the spend of its source's
// archived part (version fork-archived-spend, asked only when there is
// some).
func (r *runner) keepsArchivedSpend(ctx workflow.Context) bool {
	a := r.run.Archived
	return a != nil && (len(a.Spent) > 0 || len(a.SpentAfter) > 0) && versionOf(ctx, versionForkArchivedSpend, 1) >= 1
}

// modelPrice is the price per token of the model the run asks now.
func (r *runner) modelPrice() config.TokenCost {
	if p := r.run.Spec.Pricing; p != nil {
		return p.Models[r.run.Spec.Model.At(r.run.ModelAt).Name]
	}
	return config.TokenCost{}
}

func (r *runner) toolPrice(tool string) int64 {
	if p := r.run.Spec.Pricing; p != nil {
		return p.Tools[tool]
	}
	return 0
}

// budgeted says whether the run has a budget to keep (version budget,
// asked only for runs whose agent has one).
func (r *runner) budgeted(ctx workflow.Context) bool {
	return r.run.Spec.Agent.Policies.Budget != nil && versionOf(ctx, versionBudget, 1) >= 1
}

// limits are the run's budget: its agent's, with the raises.
func (r *runner) limits() policies.Limits {
	return policies.LimitsOf(r.run.Spec.Agent.Policies.Budget, r.run.Raised)
}

// elapsed is the run's wall time so far.
func (r *runner) elapsed(ctx workflow.Context) time.Duration {
	if r.run.BornAt.IsZero() {
		r.run.BornAt = workflow.GetInfo(ctx).WorkflowStartTime
	}
	return workflow.Now(ctx).Sub(r.run.BornAt)
}

// requestAsk is what the budget counts of the next model request before
// it is sent: its reply at the model's bound, at the model's price.
func (r *runner) requestAsk(maxTokens int) policies.RequestAsk {
	reply := int64(maxTokens)
	if reply == 0 {
		if _, output, known := r.run.Spec.Model.At(r.run.ModelAt).Window(); known {
			reply = int64(output)
		} else {
			reply = defaultReplyTokens
		}
	}
	return policies.RequestAsk{ReplyTokens: reply, Price: r.modelPrice()}
}

// budgetBeforeRequest takes the budget rung while the next model request
// would cross a limit, and answers the most tokens its prompt may take
// and the bound its reply is sent with (0: no bound), or the stop.
// maxTokens is the request's own reply bound (a longer reply), if any.
func (r *runner) budgetBeforeRequest(ctx workflow.Context, reqID string, maxTokens int) (prompt, reply int, err error) {
	err = r.budgetCheck(ctx, reqID, true, func() *policies.Crossing {
		cross, room, bound := r.requestFits(ctx, maxTokens)
		prompt, reply = int(room), int(bound)
		return cross
	})
	if err != nil {
		return 0, 0, err
	}
	return prompt, reply, nil
}

// requestFits is what the budget says of the next model request: the
// limit it would cross, else the most tokens its prompt may take and the
// bound its reply is sent with (0: none). maxTokens is the request's own
// reply bound (a longer reply), kept as it is.
func (r *runner) requestFits(ctx workflow.Context, maxTokens int) (cross *policies.Crossing, prompt, reply int64) {
	all, _ := r.spending()
	l := r.limits()
	ask := r.requestAsk(maxTokens)
	if maxTokens == 0 && (l.OutputTokens > 0 || l.CostPicos > 0) {
		ask.ReplyTokens = r.replyRoom(ctx, l, *all, ask)
		reply = ask.ReplyTokens
	}
	cross, prompt = policies.BeforeRequest(l, *all, ask, r.elapsed(ctx))
	return cross, prompt, reply
}

// replyRoom is the bound a request of a run with an output_tokens or cost
// budget is sent with: the budget counts each reply at its bound, which
// holds only when the provider is told it. Telling it the model's own
// bound changes only the request, not what the run decides; shrinking it
// to what the budget has left (policies.ReplyRoom) changes when the
// budget is crossed, so it is asked of version budget-reply-bound, and
// only then: a budget that never binds records no marker.
func (r *runner) replyRoom(ctx workflow.Context, l policies.Limits, spent policies.Spend, ask policies.RequestAsk) int64 {
	room := policies.ReplyRoom(l, spent, ask)
	if room == ask.ReplyTokens || versionOf(ctx, versionBudgetReplyBound, 1) < 1 {
		return ask.ReplyTokens
	}
	return room
}

// besideBudget is the budget of a model request beside the conversation
// (a summary, a repair): the most tokens its prompt may take (0: no
// bound), or why it is not asked. Such a request takes no budget rung:
// over the budget it is not asked, and the run goes on without it.
func (r *runner) besideBudget(ctx workflow.Context) (prompt int, over string) {
	if r.budget.stop != nil {
		return 0, r.budget.stop.Error()
	}
	if !r.budgeted(ctx) {
		return 0, ""
	}
	// Counted as the request it stands beside: a check at the model's
	// whole reply bound would refuse a summary the request itself needs.
	cross, allow, _ := r.requestFits(ctx, 0)
	if cross != nil {
		return 0, cross.Why()
	}
	return int(allow), ""
}

// budgetOverPrompt takes the budget rung for a prompt the model activity
// counted over the budget's bound and did not send.
func (r *runner) budgetOverPrompt(ctx workflow.Context, reqID string, maxTokens int, over activities.PromptCount) error {
	all, _ := r.spending()
	return r.budgetRung(ctx, reqID, true, policies.PromptCrossing(r.limits(), *all, r.requestAsk(maxTokens), int64(over.Tokens)))
}

// budgetBeforeCall takes the budget rung while a call of tool would cross
// a limit; nil once it fits.
func (r *runner) budgetBeforeCall(ctx workflow.Context, nodeID, tool string) error {
	return r.budgetCheck(ctx, nodeID, false, func() *policies.Crossing {
		all, _ := r.spending()
		return policies.BeforeCall(r.limits(), *all, tool, r.toolPrice(tool), r.elapsed(ctx))
	})
}

// budgetCheck takes the budget rung (for node nodeID) while crossing
// answers a limit crossed, and answers nil once nothing is: the budget was
// raised enough. carry: the wait may continue as new with the run (a
// request's). A stop is kept, so no later request or call of the run
// goes on; an edit's interruption or a wait carried into the next
// generation (errInterrupted, errSwitching) is not a stop.
func (r *runner) budgetCheck(ctx workflow.Context, nodeID string, carry bool, crossing func() *policies.Crossing) error {
	if r.budget.stop != nil {
		return r.budget.stop
	}
	if !r.budgeted(ctx) {
		return nil
	}
	for {
		err := r.takeHeldDecision(ctx)
		if err == nil {
			cross := crossing()
			if cross == nil {
				return nil
			}
			err = r.budgetRung(ctx, nodeID, carry, *cross)
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, errInterrupted) && !errors.Is(err, errSwitching) {
			r.budget.stop = err
		}
		return err
	}
}

// budgetRung records the crossing and waits for a person's decision when
// the agent's ladder has a human rung, else stops the run. nil: the
// budget was raised, and the caller checks again. errInterrupted: an edit
// or a person's handoff came first; errSwitching: the run continues as
// new while it waits (carry), and the next generation waits at the same
// node.
func (r *runner) budgetRung(ctx workflow.Context, parent string, carry bool, cross policies.Crossing) error {
	reason := "budget: " + cross.Why()
	outcome := "no_human"
	defer func() { r.count(ctx, MetricBudgetRungs, 1, "limit", cross.Limit, "outcome", outcome) }()
	if !slices.Contains(r.run.Spec.Agent.Policies.Escalation, config.RungHuman) {
		node := r.budgetNode(ctx, parent, cross)
		r.finishNode(ctx, node.ID, nil, reason+"; the agent's ladder has no human rung to raise it")
		return r.stop(ctx, reason)
	}
	waits := versionOf(ctx, versionBudgetWait, 1) >= 1
	w := r.heldBudget(ctx, cross)
	if w == nil {
		w = &budgetWait{nodeID: r.budgetNode(ctx, parent, cross).ID, cross: cross, waits: waits, carried: waits && carry}
	}
	r.budget.wait = w
	held := false
	defer func() {
		if !held {
			r.endBudgetWait(w)
		}
	}()
	if err := r.setPhase(ctx, signals.PhaseAwaitingHuman); err != nil {
		return err
	}
	// A wait carried from an earlier generation keeps its deadline.
	end, _, err := r.waitForPerson(ctx, personWait{
		node: w.nodeID, summary: "wait for a person's budget decision (" + w.nodeID + ")",
		answered: func() bool { return w.decision != nil },
		edits:    waits, switches: w.carried, wholeTimeout: !waits,
	})
	if err != nil {
		if cancelled(ctx, err) {
			return r.cancelled(ctx, w.nodeID)
		}
		return err
	}
	switch end {
	case waitInterrupted:
		outcome = "interrupted"
		r.finishNode(ctx, w.nodeID, nil, "not decided: "+r.interruptedWhile())
		return errors.Join(errInterrupted, r.afterBudgetWait(ctx, waits))
	case waitSwitching:
		outcome, held, w.held = "carried", true, true
		return errSwitching
	}
	if end == waitTimedOut {
		outcome = "timeout"
		limit := humanTimeout(r.run.Spec)
		r.finishNode(ctx, w.nodeID, nil, fmt.Sprintf("no budget decision within human_timeout (%s)", limit))
		return r.stop(ctx, reason+fmt.Sprintf("; no decision within human_timeout (%s)", limit))
	}
	outcome = r.decideBudget(ctx, w)
	if w.decision.Stop {
		return r.stop(ctx, reason+"; stopped by "+orSomeone(w.decision.By))
	}
	return r.afterBudgetWait(ctx, waits)
}

// decideBudget settles a budget node with the person's decision, and answers
// the metric's outcome: a raise is added to the run's raises; a stop is
// the caller's to carry out.
func (r *runner) decideBudget(ctx workflow.Context, w *budgetWait) string {
	r.finishNode(ctx, w.nodeID, mustJSON(w.decision), "")
	if w.decision.Stop {
		return "stopped"
	}
	r.run.Raised = r.run.Raised.Raise(raiseLimits(*w.decision.Raise))
	return "raised"
}

// takeHeldDecision carries out a decision that reached a budget wait
// carried from the generation before, before the run checks its budget
// again: a raise counts, a stop stops the run, whatever limit the next
// check would meet (wall time grows while a person decides).
func (r *runner) takeHeldDecision(ctx workflow.Context) error {
	w := r.budget.wait
	if w == nil || !w.held || w.decision == nil || r.life.Switching() {
		return nil
	}
	r.endBudgetWait(w)
	outcome := r.decideBudget(ctx, w)
	r.count(ctx, MetricBudgetRungs, 1, "limit", w.cross.Limit, "outcome", outcome)
	if w.decision.Stop {
		return r.stop(ctx, "budget: "+w.cross.Why()+"; stopped by "+orSomeone(w.decision.By))
	}
	return nil
}

// budgetNode records a crossing in the trace: a budget node, pending
// until a person decides.
func (r *runner) budgetNode(ctx workflow.Context, parent string, cross policies.Crossing) *Node {
	all, _ := r.spending()
	return r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindBudget, Status: signals.StatusPending, Parents: []string{parent},
		Args: mustJSON(map[string]any{"crossing": cross, "why": cross.Why(), "spend": r.spendStatus(ctx, all)}),
	}, Step: r.run.Step})
}

// afterBudgetWait puts the phase back once a budget rung's wait ended:
// awaiting_approval while calls of the step still wait for a person
// (version budget-wait), else running.
func (r *runner) afterBudgetWait(ctx workflow.Context, waits bool) error {
	if waits {
		return r.approvalPhase(ctx)
	}
	return r.setPhase(ctx, signals.PhaseRunning)
}

// heldBudget is the budget wait carried from the generation before, when
// it waits for the same limit: the wait goes on at its node, with its
// deadline. One for another limit is settled: the run no longer waits
// there (a decision sent to it was taken before: takeHeldDecision).
func (r *runner) heldBudget(ctx workflow.Context, cross policies.Crossing) *budgetWait {
	w := r.budget.wait
	if w == nil || !w.held {
		return nil
	}
	if w.cross.Limit != cross.Limit || w.cross.Tool != cross.Tool {
		r.dropHeldBudget(ctx, notWaited)
		return nil
	}
	w.held, w.cross = false, cross
	return w
}

// dropHeldBudget settles a held budget wait the run no longer needs, and
// says why (notWaited, for one carried from the generation before whose
// request was sent or that another limit replaced; an edit's words when
// an edit takes the run that was about to carry it).
func (r *runner) dropHeldBudget(ctx workflow.Context, why string) {
	if w := r.budget.wait; w != nil && w.held && !r.life.Switching() {
		r.finishNode(ctx, w.nodeID, nil, why)
		r.endBudgetWait(w)
	}
}

// notWaited is why a carried budget wait ended undecided.
const notWaited = "not decided: the run no longer waits at this limit"

// endBudgetWait forgets budget wait w: nothing waits at its node now.
func (r *runner) endBudgetWait(w *budgetWait) {
	r.budget.wait = nil
	r.waits.forget(w.nodeID)
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

// budgetWanted says whether a budget decision can land now: a budget rung
// waits, has no decision yet, and a raise names only limits the budget
// has.
func (r *runner) budgetWanted(req signals.BudgetRequest) error {
	b := r.run.Spec.Agent.Policies.Budget
	switch {
	case b == nil:
		return fmt.Errorf("budget: the run has no budget (its agent %s has no policies.budget)", r.run.Spec.Agent.Name)
	case r.budget.wait == nil:
		return fmt.Errorf("budget: no budget rung waits (the run is %s): a raise is taken only while the run waits at one", r.run.Phase)
	case r.budget.wait.decision != nil:
		return fmt.Errorf("budget: %s already has a decision", r.budget.wait.nodeID)
	case req.Stop:
		return nil
	}
	var missing []string
	has := func(name string, raised bool, limit bool) {
		if raised && !limit {
			missing = append(missing, name)
		}
	}
	x := req.Raise
	has("model_requests", x.ModelRequests > 0, b.ModelRequests != nil)
	has("tool_calls", x.ToolCalls > 0, b.ToolCalls != nil)
	has("input_tokens", x.InputTokens > 0, b.InputTokens != nil)
	has("output_tokens", x.OutputTokens > 0, b.OutputTokens != nil)
	has("cost", x.Cost > 0, b.Cost != nil)
	has("wall_time", x.WallTime != "", b.WallTime > 0)
	for _, tool := range sortedIDs(x.ToolCallsPerTool) {
		_, limited := b.ToolCallsPerTool[tool]
		has("tool_calls_per_tool."+tool, true, limited)
	}
	if len(missing) > 0 {
		return fmt.Errorf("budget: raise.%s: the run's budget has no such limit to raise", missing[0])
	}
	if w := r.budget.wait; w.waits && !w.cross.Raises(raiseLimits(*x)) {
		return fmt.Errorf("budget: the run waits because %s: a raise must raise %s", w.cross.Why(), w.cross.Field())
	}
	return nil
}

// acceptBudget is where a valid budget decision lands, from the update or
// the signal.
func (r *runner) acceptBudget(req signals.BudgetRequest) (signals.BudgetResult, error) {
	if err := r.budgetWanted(req); err != nil {
		return signals.BudgetResult{}, err
	}
	copied := req
	r.budget.wait.decision = &copied
	return signals.BudgetResult{NodeID: r.budget.wait.nodeID}, nil
}

// spendStatus is status.spend: the run's spend (or an agent's), its
// budget's limits, in people's units.
func (r *runner) spendStatus(ctx workflow.Context, s *policies.Spend) *signals.SpendStatus {
	if s == nil {
		return nil
	}
	out := viewSpend(*s, r.run.Spec.Pricing)
	if r.run.Spec.Agent.Policies.Budget != nil {
		l := r.limits()
		out.Limits = map[string]any{}
		put := func(name string, v int64) {
			if v > 0 {
				out.Limits[name] = v
			}
		}
		put(policies.LimitInputTokens, l.InputTokens)
		put(policies.LimitOutputTokens, l.OutputTokens)
		put(policies.LimitModelRequests, l.ModelRequests)
		put(policies.LimitToolCalls, l.ToolCalls)
		if len(l.ToolCallsBy) > 0 {
			out.Limits["tool_calls_per_tool"] = l.ToolCallsBy
		}
		if l.CostPicos > 0 {
			out.Limits[policies.LimitCost] = config.Amount(l.CostPicos)
		}
		if l.WallTime > 0 {
			out.Limits[policies.LimitWallTime] = l.WallTime.String()
		}
	}
	if ctx != nil && !r.run.BornAt.IsZero() {
		out.WallTime = workflow.Now(ctx).Sub(r.run.BornAt).Round(time.Second).String()
	}
	return &out
}

// statusSpend is status.spend: the run's spend with each agent's share
// (nil before the run spent anything).
func (r *runner) statusSpend() *signals.SpendStatus {
	out := r.spendStatus(nil, r.run.Spend)
	if out == nil {
		return nil
	}
	// Building a map: the order does not matter.
	//workflowcheck:ignore
	for agent, s := range r.run.SpendBy {
		if out.ByAgent == nil {
			out.ByAgent = map[string]signals.SpendStatus{}
		}
		out.ByAgent[agent] = viewSpend(*s, r.run.Spec.Pricing)
	}
	if !r.run.BornAt.IsZero() && r.seenAt.After(r.run.BornAt) {
		out.WallTime = r.seenAt.Sub(r.run.BornAt).Round(time.Second).String()
	}
	return out
}

// viewSpend is a spend in people's units.
func viewSpend(s policies.Spend, pricing *config.Pricing) signals.SpendStatus {
	out := signals.SpendStatus{
		InputTokens: s.InputTokens, OutputTokens: s.OutputTokens, ModelRequests: s.ModelRequests,
		ToolCalls: s.ToolCalls, ToolCallsBy: s.ToolCallsBy, Estimated: s.Estimated,
	}
	if pricing != nil {
		out.Cost, out.Currency = config.Amount(s.CostPicos), pricing.Currency
	}
	return out
}
