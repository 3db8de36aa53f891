package mend

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies/repair"
)

// acts is used only for its method values: the activity names.
var acts *activities.Activities

// modelStrategy is the strategy a repair node names for the model's repair.
const modelStrategy = "model"

// retryPolicy: a repair request is one short model request; a model
// that is down is not worth a long wait here, the call fails instead.
func retryPolicy() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 3,
		NonRetryableErrorTypes: []string{activities.ModelRejectedError, activities.BadRepairError},
	}
}

// withModel is the one focused model request for a call. It is a model
// request like any other: the run's spend counts it and, in a run with a
// budget, it is asked only within it (over the budget, the call's error
// goes back as without a repair: a repair takes no budget rung).
func (m *Mender) withModel(ctx workflow.Context, node string, tool config.Tool, args json.RawMessage, why string) (json.RawMessage, string) {
	if m.Left(node) <= 0 {
		return nil, why
	}
	def := activities.ToolDef{Name: tool.Name, Description: tool.Description, Parameters: m.host.JSON(tool.Parameters)}
	// Of the model the run asks now, at whose price the budget counts it (SpendTokens).
	req := activities.RepairRequest{Agent: m.host.Spec().Agent.Name, Task: m.host.Task(), Tool: def, Args: args, Error: why, Fallback: m.host.ModelAt()}
	if m.host.Version(ctx, GateRepairSpend) >= 1 {
		prompt, over := m.host.BudgetLeft(ctx)
		if over != "" {
			workflow.GetLogger(ctx).Info("no model repair: over the budget", "call", node, "why", over)
			return nil, why
		}
		req.WithUsage, req.SpendTokens = true, prompt
	}
	m.at.add(node)
	opts := m.host.ModelOptions(ctx, retryPolicy())
	opts.Summary = "model: repair the arguments of " + tool.Name
	actx := workflow.WithActivityOptions(ctx, opts)
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
			m.host.Spend(ctx, repairID, reply.InputTokens, reply.OutputTokens, reply.Estimated)
		}
	}
	fixed := reply.Args
	if err != nil {
		msg := "the model could not repair the arguments: " + m.host.ErrorText(err)
		m.countModel(ctx, "failed")
		spend(m.record(ctx, node, tool.Name, args, nil, repair.Result{Reason: msg}, msg))
		return nil, why + " (" + msg + ")"
	}
	if problem := m.host.CheckArgs(tool, fixed); problem != "" {
		m.countModel(ctx, "refused")
		spend(m.record(ctx, node, tool.Name, args, fixed, repair.Result{Reason: modelStrategy}, "the model's arguments are still refused: "+problem))
		return nil, problem + fmt.Sprintf(" (after %d repair attempts)", m.at.made[node])
	}
	m.countModel(ctx, "repaired")
	spend(m.record(ctx, node, tool.Name, args, fixed, repair.Result{Valid: true, Repairs: []repair.Applied{{Strategy: modelStrategy, Path: "/", Reason: why}}}, ""))
	return fixed, ""
}
