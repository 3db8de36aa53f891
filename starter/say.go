package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/signals"
)

type sayOptions struct {
	runID, text, by string
	signal          bool
}

// newSayCmd is `unstuck say`: a conversation's next message.
func newSayCmd(c *cli) *cobra.Command {
	var o sayOptions
	cmd := &cobra.Command{
		Use:   "say WORKFLOW_ID --text TEXT",
		Short: "Send a conversation its next message (an agent with conversation:)",
		Long: `Send the "message" message to a run of an agent with conversation: the
user's next message. A run waiting in phase awaiting_user takes it as its next
turn; a run still working on the last one takes it by its agent's double_text
(enqueue: after the current step; reject: refused; interrupt and rollback: the
model request in flight is cut short). See docs/conversations.md.

By default it is an update: the run answers with how many messages wait to be
taken (this one included), or refuses it with the reason (not a conversation,
an empty text, the run has ended). With --signal it is a signal: fire and
forget; a message that cannot apply is recorded in the trace and ignored.

Equivalent temporal commands:
  temporal workflow update execute --workflow-id WORKFLOW_ID --name message --input '{"text": "..."}'
  temporal workflow signal --workflow-id WORKFLOW_ID --name message --input '{"text": "..."}'`,
		Example: `  unstuck say chat-1 --text "Something near the river, under 150 a night" --by ana
  unstuck say chat-1 --text "Thanks!" --signal`,
		Args: oneWorkflowID,
		RunE: func(cmd *cobra.Command, args []string) error {
			req := signals.MessageRequest{Text: o.text, Audit: signals.Audit{By: o.by}}
			if err := req.Validate(); err != nil {
				return usageErrorf("%v (use --text)", err)
			}
			return c.say(cmd.Context(), cmd, args[0], o, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.text, "text", "", "the message")
	f.StringVar(&o.by, "by", "", "who says it (kept in the trace)")
	f.BoolVar(&o.signal, "signal", false, "send a signal (fire and forget) instead of an update")
	f.StringVar(&o.runID, "run-id", "", "run id (default: the latest run of the workflow id)")
	return cmd
}

func (c *cli) say(ctx context.Context, cmd *cobra.Command, workflowID string, o sayOptions, req signals.MessageRequest) error {
	var res signals.MessageResult
	if err := c.send(ctx, cmd, workflowID, o.runID, signals.Message, o.signal, req, &res); err != nil {
		if o.signal {
			return err
		}
		return fmt.Errorf("message to %s failed: %w", workflowID, err)
	}
	if !o.signal {
		fmt.Fprintf(cmd.OutOrStdout(), "message taken by %s: %d waiting to be answered (see `unstuck trace %s`)\n", workflowID, res.Queued, workflowID)
	}
	return nil
}
