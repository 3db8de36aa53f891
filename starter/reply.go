package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
)

type replyOptions struct {
	runID, text, output, by, reason string
	signal                          bool
	signerFlags                     // --as, --key sign the reply (approve_sign.go)
}

func newReplyCmd(c *cli) *cobra.Command {
	var o replyOptions
	cmd := &cobra.Command{
		Use:   "reply WORKFLOW_ID",
		Short: "Answer a run that waits for a person (phase awaiting_human)",
		Long: `Send the "reply" message to a run waiting for a person: a human node of its
graph, or the human rung of the escalation ladder. The text joins the
conversation; --output (a JSON value) is stored at †state.human.

A run handed to a person (phase awaiting_human, its agent of kind human, see
"unstuck handoff") takes the same message: --output completes the run, with
that value as its output (validated against the run's output schema; a value
that does not fit is refused); text alone returns the run to the agent that
handed it over, the text joining its conversation as the person's message.

A human node or human rung whose approval names by: groups takes only signed
replies: --as NAME --key FILE (or UNSTUCK_APPROVER_KEY=FILE) signs this reply
as NAME, a member of the groups asked now ("unstuck status" lists them under
pending_reply.answering), binding the run and the human node it answers.

By default it is an update: the run validates it and answers with the human
node it settled, or refuses it with the reason ("nothing waits for a reply").
With --signal it is a signal: fire and forget; a reply that cannot apply is
recorded in the trace and ignored.

Equivalent temporal commands:
  temporal workflow update execute --workflow-id WORKFLOW_ID --name reply --input '{"text": "..."}'
  temporal workflow signal --workflow-id WORKFLOW_ID --name reply --input '{"text": "..."}'`,
		Example: `  unstuck reply travel-20240115-093000-1a2b3c --text "Try the 9am flight instead."
  unstuck reply approver-1 --text approved --output '{"approved": true}' --by alice --reason "checked"
  unstuck reply support-1 --output '{"refunded": true, "amount": 42}' --by alice   # a person completes a run handed to them
  unstuck reply ops-3 --text "restart the job" --as carol --key ~/.unstuck/carol.key   # a human node that names by: [ops]`,
		Args: oneWorkflowID,
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := o.request()
			if err != nil {
				return err
			}
			return c.reply(cmd.Context(), cmd, args[0], o, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.text, "text", "", "what the person says (joins the conversation)")
	f.StringVar(&o.output, "output", "", "a JSON value for the run (stored at †state.human)")
	f.StringVar(&o.by, "by", "", "who replies (kept in the audit trail)")
	f.StringVar(&o.reason, "reason", "", "why (kept in the audit trail)")
	f.BoolVar(&o.signal, "signal", false, "send a signal (fire and forget) instead of an update")
	f.StringVar(&o.runID, "run-id", "", "run id (default: the latest run of the workflow id)")
	o.signerFlags.add(f, "reply")
	return cmd
}

// request checks the flags before anything is dialled.
func (o replyOptions) request() (signals.ReplyRequest, error) {
	req := signals.ReplyRequest{Text: o.text, Audit: signals.Audit{By: o.by, Reason: o.reason}}
	if strings.TrimSpace(o.output) != "" {
		if !json.Valid([]byte(o.output)) {
			return req, usageErrorf("--output is not valid JSON")
		}
		req.Output = json.RawMessage(o.output)
	}
	if err := req.Validate(); err != nil {
		return req, usageErrorf("%v (use --text or --output)", err)
	}
	as, err := o.signedBy(o.by, "reply")
	if as != "" {
		req.By = as
	}
	return req, err
}

func (c *cli) reply(ctx context.Context, cmd *cobra.Command, workflowID string, o replyOptions, req signals.ReplyRequest) error {
	signer, err := o.signer()
	if err != nil {
		return err
	}
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	if signer != nil {
		// --as signs it for the human node the run waits at (runmsg.SignReply).
		if err := runmsg.SignReply(ctx, tc, workflowID, o.runID, signer.key, signer.as, &req); err != nil {
			return err
		}
	}
	var res signals.ReplyResult
	if err := sendWith(ctx, tc, cmd, workflowID, o.runID, signals.Reply, o.signal, req, &res); err != nil {
		if o.signal {
			return err
		}
		return fmt.Errorf("reply to %s failed: %w", workflowID, err)
	}
	if !o.signal {
		fmt.Fprintf(cmd.OutOrStdout(), "reply accepted by %s: it settles node %s\n", workflowID, res.NodeID)
	}
	return nil
}
