package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/signals"
)

type budgetOptions struct {
	runID, by, reason, wallTime                         string
	modelRequests, toolCalls, inputTokens, outputTokens int64
	cost                                                float64
	perTool                                             map[string]int64
	stop, signal                                        bool
}

func newBudgetCmd(c *cli) *cobra.Command {
	var o budgetOptions
	cmd := &cobra.Command{
		Use:   "budget WORKFLOW_ID",
		Short: "Raise the budget of a run waiting at its budget rung, or stop it",
		Long: `Send the "budget" message to a run waiting at its budget rung: a model request
or tool call would cross a limit of its policies.budget, and the agent's ladder
has a human rung (phase awaiting_human; "unstuck status" shows the spend and the
limits). Raise the limits by the amounts given (each one the budget has), or
stop the run with its report (AgentStopped).

By default it is an update: the run validates it and answers with the budget
node it settled, or refuses it with the reason (no budget rung waits, a limit
the budget does not have, an amount that is not positive). A raise is never
kept for a later rung. With --signal it is a signal: fire and forget; one that
cannot apply is recorded in the trace and ignored.

Equivalent temporal commands:
  temporal workflow update execute --workflow-id WORKFLOW_ID --name budget --input '{"raise": {"tool_calls": 10}}'
  temporal workflow update execute --workflow-id WORKFLOW_ID --name budget --input '{"stop": true}'`,
		Example: `  unstuck budget travel-1 --tool-calls 10 --by alice --reason "the customer pays for it"
  unstuck budget travel-1 --cost 2.50 --model-requests 20
  unstuck budget travel-1 --wall-time 30m
  unstuck budget travel-1 --tool-calls-per-tool search=5
  unstuck budget travel-1 --stop --by alice`,
		Args: oneWorkflowID,
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := o.request()
			if err != nil {
				return err
			}
			return c.budget(cmd.Context(), cmd, args[0], o, req)
		},
	}
	f := cmd.Flags()
	f.Int64Var(&o.modelRequests, "model-requests", 0, "raise model_requests by this many")
	f.Int64Var(&o.toolCalls, "tool-calls", 0, "raise tool_calls by this many")
	f.Int64Var(&o.inputTokens, "input-tokens", 0, "raise input_tokens by this many")
	f.Int64Var(&o.outputTokens, "output-tokens", 0, "raise output_tokens by this many")
	f.StringToInt64Var(&o.perTool, "tool-calls-per-tool", nil, "raise tool_calls_per_tool of a tool by this many (tool=N, repeatable)")
	f.Float64Var(&o.cost, "cost", 0, "raise cost by this amount, in the budget's currency")
	f.StringVar(&o.wallTime, "wall-time", "", "raise wall_time by this duration (e.g. 30m)")
	f.BoolVar(&o.stop, "stop", false, "stop the run with its report instead")
	f.StringVar(&o.by, "by", "", "who decides (kept in the audit trail)")
	f.StringVar(&o.reason, "reason", "", "why (kept in the audit trail)")
	f.BoolVar(&o.signal, "signal", false, "send a signal (fire and forget) instead of an update")
	f.StringVar(&o.runID, "run-id", "", "run id (default: the latest run of the workflow id)")
	return cmd
}

// request checks the flags before anything is dialled.
func (o budgetOptions) request() (signals.BudgetRequest, error) {
	req := signals.BudgetRequest{Audit: signals.Audit{By: o.by, Reason: o.reason}, Stop: o.stop}
	raise := signals.BudgetRaise{ModelRequests: o.modelRequests, ToolCalls: o.toolCalls, InputTokens: o.inputTokens,
		OutputTokens: o.outputTokens, Cost: o.cost, WallTime: o.wallTime, ToolCallsPerTool: o.perTool}
	if !raise.Empty() {
		req.Raise = &raise
	}
	if o.wallTime != "" {
		if _, err := time.ParseDuration(o.wallTime); err != nil {
			return req, usageErrorf("--wall-time %q is not a duration (e.g. 30m)", o.wallTime)
		}
	}
	if err := req.Validate(); err != nil {
		return req, usageErrorf("%v (use --stop, or a raise such as --tool-calls 10)", err)
	}
	return req, nil
}

func (c *cli) budget(ctx context.Context, cmd *cobra.Command, workflowID string, o budgetOptions, req signals.BudgetRequest) error {
	var res signals.BudgetResult
	if err := c.send(ctx, cmd, workflowID, o.runID, signals.Budget, o.signal, req, &res); err != nil {
		if o.signal {
			return err
		}
		return fmt.Errorf("budget decision for %s failed: %w", workflowID, err)
	}
	if !o.signal {
		what := "raise"
		if req.Stop {
			what = "stop"
		}
		fmt.Fprintf(cmd.OutOrStdout(), "budget %s accepted by %s: it settles node %s\n", what, workflowID, res.NodeID)
	}
	return nil
}
