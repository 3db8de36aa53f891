package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
)

type approveOptions struct {
	runID, callID, decision, args, tool, by, reason string
	signal                                          bool
	signerFlags                                     // --as, --key sign the approval (approve_sign.go)
	group                                           groupOptions
}

func newApproveCmd(c *cli) *cobra.Command {
	var o approveOptions
	cmd := &cobra.Command{
		Use:   "approve WORKFLOW_ID | --group ID",
		Short: "Settle a call waiting for approval: approve, reject, modify or replace it",
		Long: `Send the "approve" message for a call that waits for approval (a tool with
approval: always). "unstuck status" lists the waiting calls as pending_approvals
with their call ids.

  --decision approve   run the call as the model made it
  --decision reject    do not run it; the model hears why (--reason)
  --decision modify    run it with --args instead
  --decision replace   run --tool with --args instead

By default it is an update: the run validates it and answers, or refuses it
with the reason. With --signal it is fire and forget; a decision that cannot
apply is recorded in the trace and ignored.

A tool whose approval names by: groups takes only signed approvals: --as NAME
--key FILE (or UNSTUCK_APPROVER_KEY=FILE) signs this decision as NAME with
the private key of "unstuck people keygen", for this run, call, tool,
decision and arguments only. Under approvers: N the call runs once N distinct
people approved it.

With --group ID it answers a group of "unstuck inbox" (approve or reject;
--by is required): it lists the inbox again and sends each call of the group
still waiting (or of --only, or all but --except) its own approve update, 32
at a time, with --by and a reason naming the group decision ("group ID
approved by NAME"), so each run records its own approval node. A call settled,
or a run ended, meanwhile is skipped and counted; a failure is named and stops
no other. Exit 0 when every call was answered or skipped, 1 when any failed or
a run could not be read, 2 when nothing waits in the group.

Equivalent temporal command:
  temporal workflow update execute --workflow-id WORKFLOW_ID --name approve \
    --input '{"call_id": "n3", "decision": "approve"}'`,
		Example: `  unstuck approve travel-1 --call-id n3 --decision approve --by alice
  unstuck approve travel-1 --call-id n3 --decision modify --args '{"seat": "14C"}'
  unstuck approve travel-1 --call-id n3 --decision reject --reason "over budget"
  unstuck approve pay-7 --call-id n5 --decision approve --as ana --key ~/.unstuck/ana.key
  unstuck approve --group 3fa9c2e1b0 --decision approve --by ana
  unstuck approve --group 3fa9c2e1b0 --decision reject --by ana --only travel-1/n3,travel-9/n5`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.group.id != "" {
				return noArgs(cmd, args)
			}
			return oneWorkflowID(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.group.id != "" {
				return c.approveGroup(cmd.Context(), cmd, o)
			}
			req, err := o.request()
			if err != nil {
				return err
			}
			return c.approve(cmd.Context(), cmd, args[0], o, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.callID, "call-id", "", "the waiting call (status: pending_approvals)")
	f.StringVar(&o.decision, "decision", "", "approve, reject, modify or replace")
	f.StringVar(&o.args, "args", "", "arguments (a JSON object) for modify and replace")
	f.StringVar(&o.tool, "tool", "", "the tool to run instead, for replace")
	f.StringVar(&o.by, "by", "", "who decides (kept in the audit trail)")
	f.StringVar(&o.reason, "reason", "", "why (kept in the audit trail; a rejection's reason reaches the model)")
	f.BoolVar(&o.signal, "signal", false, "send a signal (fire and forget) instead of an update")
	f.StringVar(&o.runID, "run-id", "", "run id (default: the latest run of the workflow id)")
	o.signerFlags.add(f, "decision")
	o.group.flags(f)
	return cmd
}

// request checks the flags before anything is dialled.
func (o approveOptions) request() (signals.ApproveRequest, error) {
	req := signals.ApproveRequest{CallID: o.callID, Decision: o.decision, Audit: signals.Audit{By: o.by, Reason: o.reason}}
	if strings.TrimSpace(o.args) != "" {
		if !json.Valid([]byte(o.args)) {
			return req, usageErrorf("--args is not valid JSON")
		}
		if o.decision == signals.DecisionReplace {
			req.Call = &signals.ReplacementCall{Tool: o.tool, Args: json.RawMessage(o.args)}
		} else {
			req.Args = json.RawMessage(o.args)
		}
	} else if o.decision == signals.DecisionReplace {
		req.Call = &signals.ReplacementCall{Tool: o.tool}
	}
	if err := req.Validate(); err != nil {
		return req, usageErrorf("%v", err)
	}
	return req, o.signing(&req)
}

func (c *cli) approve(ctx context.Context, cmd *cobra.Command, workflowID string, o approveOptions, req signals.ApproveRequest) error {
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	signer, err := o.signer()
	if err != nil {
		return err
	}
	if o.signal {
		if err := signer.sign(ctx, tc, workflowID, o.runID, runmsg.Known{}, &req); err != nil {
			return err
		}
		return sendWith(ctx, tc, cmd, workflowID, o.runID, signals.Approve, true, req, nil)
	}
	res, err := c.approveCall(ctx, tc, workflowID, o.runID, runmsg.Known{}, req, signer)
	if err != nil {
		return fmt.Errorf("approve for %s failed: %w", workflowID, err)
	}
	if res.Decision == signals.DecisionApprove && res.Approved < res.Needed {
		fmt.Fprintf(cmd.OutOrStdout(), "%s: call %s approved by %d of %d people; it waits for the rest\n", workflowID, res.CallID, res.Approved, res.Needed)
		return nil
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: call %s settled (%s)\n", workflowID, res.CallID, res.Decision)
	return nil
}

// approveCall sends one approve update on a client already dialed, signed
// first when signer is set: the one path of a call's approval, alone or
// as part of a group's.
func (c *cli) approveCall(ctx context.Context, tc client.Client, workflowID, runID string, known runmsg.Known, req signals.ApproveRequest, signer *approver) (signals.ApproveResult, error) {
	var res signals.ApproveResult
	if err := signer.sign(ctx, tc, workflowID, runID, known, &req); err != nil {
		return res, err
	}
	err := runmsg.Update(ctx, tc, workflowID, runID, signals.Approve, req, &res)
	return res, err
}
