package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/policies/repair"
	"github.com/unstuck-dev/unstuck/signals"
)

// repairBefore answers arguments that failed the tool's schema before the
// call ran: rules first (no model), then, for what needs judgement, one
// focused model request; each attempt is a repair node, and a call gets at
// most repair.max_attempts of them.
func (r *runner) repairBefore(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage, why string) (json.RawMessage, string) {
	if r.repairsLeft(nodeID) <= 0 {
		return nil, why
	}
	argsMap, ok := objectOf(args)
	if !ok {
		return nil, why
	}
	schema, _ := r.toolSchema(tool)
	now := workflow.Now(ctx)
	res := ruleRepair(ctx, func(rules repair.RuleSet) repair.Result {
		return gateRules(ctx, func(disabled []string) repair.Result {
			return repair.Repair(tool.Parameters, argsMap, repair.Options{Today: now, Compiled: schema, Rules: rules, Disabled: disabled})
		})
	})
	if len(res.Repairs) > 0 {
		r.repairs[nodeID]++
		fixed := mustJSON(res.Args)
		r.repairNode(ctx, nodeID, tool.Name, args, fixed, res, "")
		if res.Valid {
			return fixed, ""
		}
		args = fixed
		why = "arguments do not match the tool's parameters schema: " + describe(res.Unrepaired)
	}
	return r.repairWithModel(ctx, nodeID, tool, args, why)
}

// repairAfter answers arguments a tool refused as invalid_args: the
// rejection's message is parsed into the same rules, then the model is
// asked. ok is false when nothing better was found.
func (r *runner) repairAfter(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage, message string) (json.RawMessage, bool) {
	if r.repairsLeft(nodeID) <= 0 {
		return nil, false
	}
	argsMap, ok := objectOf(args)
	if !ok {
		return nil, false
	}
	schema, _ := r.toolSchema(tool)
	now := workflow.Now(ctx)
	res := ruleRepair(ctx, func(rules repair.RuleSet) repair.Result {
		return repair.RepairRejection(tool.Parameters, argsMap, message, repair.Options{Today: now, Compiled: schema, Rules: rules})
	})
	if len(res.Repairs) > 0 && res.Valid {
		r.repairs[nodeID]++
		fixed := mustJSON(res.Args)
		r.repairNode(ctx, nodeID, tool.Name, args, fixed, res, "")
		return fixed, true
	}
	fixed, problem := r.repairWithModel(ctx, nodeID, tool, args, message)
	return fixed, problem == "" && fixed != nil
}

// repairWithModel is the one focused model request for a call. It is a
// model request like any other: the run's spend counts it and, in a run
// with a budget, it is asked only within it (over the budget, the call's
// error goes back as without a repair: a repair takes no budget rung).
func (r *runner) repairWithModel(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage, why string) (json.RawMessage, string) {
	if r.repairsLeft(nodeID) <= 0 {
		return nil, why
	}
	def := activities.ToolDef{Name: tool.Name, Description: tool.Description, Parameters: mustJSON(tool.Parameters)}
	// Of the model the run asks now, at whose price the budget counts it (SpendTokens).
	req := activities.RepairRequest{Agent: r.run.Spec.Agent.Name, Task: r.run.Input.Task, Tool: def, Args: args, Error: why, Fallback: r.run.ModelAt}
	if versionOf(ctx, versionRepairSpend, 1) >= 1 {
		prompt, over := r.budget().Beside(ctx)
		if over != "" {
			workflow.GetLogger(ctx).Info("no model repair: over the budget", "call", nodeID, "why", over)
			return nil, why
		}
		req.WithUsage, req.SpendTokens = true, prompt
	}
	r.repairs[nodeID]++
	opts := r.model().WithHeartbeat(ctx, repairOptions(r.run.Spec.Model))
	actx := workflow.WithActivityOptions(ctx, withSummary(opts, "model: repair the arguments of "+tool.Name))
	var raw json.RawMessage
	err := workflow.ExecuteActivity(actx, acts.RepairArgs, req).Get(ctx, &raw)
	reply := activities.RepairReply{Args: raw}
	if err == nil && req.WithUsage {
		reply = activities.RepairReply{}
		if err = json.Unmarshal(raw, &reply); err == nil && reply.Args == nil {
			err = errors.New(activities.NoRepairCall(tool.Name))
		}
	}
	// spend counts the request on its repair node, once answered.
	spend := func(repairID string) {
		if req.WithUsage && raw != nil {
			r.budget().SpendTokens(ctx, repairID, reply.InputTokens, reply.OutputTokens, reply.Estimated)
		}
	}
	fixed := reply.Args
	if err != nil {
		msg := "the model could not repair the arguments: " + errorText(err)
		r.countModelRepair(ctx, "failed")
		spend(r.repairNode(ctx, nodeID, tool.Name, args, nil, repair.Result{Reason: msg}, msg))
		return nil, why + " (" + msg + ")"
	}
	if problem := r.checkArgs(tool, fixed); problem != "" {
		r.countModelRepair(ctx, "refused")
		spend(r.repairNode(ctx, nodeID, tool.Name, args, fixed, repair.Result{Reason: modelStrategy}, "the model's arguments are still refused: "+problem))
		return nil, problem + fmt.Sprintf(" (after %d repair attempts)", r.repairs[nodeID])
	}
	r.countModelRepair(ctx, "repaired")
	spend(r.repairNode(ctx, nodeID, tool.Name, args, fixed, repair.Result{Valid: true, Repairs: []repair.Applied{{Strategy: modelStrategy, Path: "/", Reason: why}}}, ""))
	return fixed, ""
}

// modelStrategy is the strategy a repair node names for the model's repair.
const modelStrategy = "model"

// repairNode records one repair attempt in the trace, and answers its id.
func (r *runner) repairNode(ctx workflow.Context, callID, tool string, before, after json.RawMessage, res repair.Result, errText string) string {
	strategies := []map[string]any{}
	for _, a := range res.Repairs {
		strategies = append(strategies, map[string]any{"strategy": a.Strategy, "path": a.Path, "before": a.Before, "after": a.After, "reason": a.Reason})
	}
	out := map[string]any{"repairs": strategies, "reason": res.Reason}
	if after != nil {
		out["args"] = after
	}
	n := r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindRepair, Status: signals.StatusCompleted, Parents: []string{callID},
		Tool: tool, Args: before, Output: mustJSON(out), Error: errText,
	}, Step: r.run.Step})
	if errText != "" {
		n.Status = signals.StatusFailed
	}
	r.countRuleRepairs(ctx, res)
	return n.ID
}

// tried records arguments a call was issued with, and reports whether
// they had been tried before: a repair never re-issues arguments the tool
// already refused (A -> B -> A).
func (r *runner) tried(nodeID string, args json.RawMessage) bool {
	canon, err := policies.CanonicalJSON(args)
	if err != nil {
		return false
	}
	if r.triedArgs[nodeID] == nil {
		r.triedArgs[nodeID] = map[string]bool{}
	}
	seen := r.triedArgs[nodeID][string(canon)]
	r.triedArgs[nodeID][string(canon)] = true
	return seen
}

func (r *runner) repairsLeft(nodeID string) int {
	return r.run.Spec.Agent.Policies.Repair.MaxAttempts - r.repairs[nodeID]
}

// repairOptions: a repair request is one short model request; a model
// that is down is not worth a long wait here, the call fails instead.
func repairOptions(m config.Model) workflow.ActivityOptions {
	o := modelOptions(m)
	o.RetryPolicy = &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 3,
		NonRetryableErrorTypes: []string{activities.ModelRejectedError, activities.BadRepairError},
	}
	return o
}

func objectOf(args json.RawMessage) (map[string]any, bool) {
	v, err := decodeJSON(args)
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

func describe(vs []config.Violation) string {
	text := ""
	for i, v := range vs {
		if i > 0 {
			text += "; "
		}
		text += v.String()
	}
	return text
}
