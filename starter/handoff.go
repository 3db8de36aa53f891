package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/signals"
)

type handoffOptions struct {
	runID, to, note, by, reason string
	// toSet: --to was given, even empty (an empty --to is a mistake to
	// report, not a flag to ignore: leaving it out lets the run choose).
	toSet        bool
	signal, json bool
}

func newHandoffCmd(c *cli) *cobra.Command {
	var o handoffOptions
	cmd := &cobra.Command{
		Use:   "handoff WORKFLOW_ID [--to AGENT] [--note TEXT]",
		Short: "Hand a run to another agent, with its whole context",
		Long: `Send the "handoff" message to a run: it goes on with another agent of the
worker's config, which takes the whole context (the task, the conversation,
what the run found and tried) and reads --note first. The trace keeps a
handoff node with --by and --reason, and the run's handoff path grows by the
agent that took it.

  --to AGENT    the agent to hand the run to; it must be in the current
                agent's "handoffs" (a name, "human" for any person, or "*")
  (no --to)     the run chooses the best-placed agent its "handoffs" allow:
                capabilities and description matched against the note,
                then tier, success rate and load; people (kind: human)
                last, as the last resort

Candidates that cannot take the run are skipped, each with the reason:
already in the handoff path (a run never bounces back), over capacity
(max_concurrent), not in the agent's handoffs, or no capability match. A
person (an agent of kind human) who takes the run answers it with
"unstuck reply".

By default it is an update: the run validates the handoff and answers with
the agent that took the run, the candidates refused and why, and the handoff
path; or refuses it with the reason (an unknown agent, one not in the
agent's handoffs, the agent itself). When no candidate is left, no agent
takes the run and it stops. With --signal it is fire and forget; a handoff
that cannot apply is recorded in the trace and ignored.

Equivalent temporal commands:
  temporal workflow update execute --workflow-id WORKFLOW_ID --name handoff \
    --input '{"to": "refunds", "note": "The customer wants a refund for order 1234.", "by": "alice"}'
  temporal workflow signal --workflow-id WORKFLOW_ID --name handoff \
    --input '{"note": "Needs someone who can issue refunds."}'`,
		Example: `  unstuck handoff support-1 --to refunds --note "The customer wants a refund for order 1234." --by alice
  unstuck handoff support-1 --note "Needs someone who can issue refunds."   # the run chooses
  unstuck handoff support-1 --to supervisor --reason "an angry customer" --json`,
		Args: oneWorkflowID,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.toSet = cmd.Flags().Changed("to")
			req, err := o.request()
			if err != nil {
				return err
			}
			return c.handoff(cmd.Context(), cmd, args[0], o, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.to, "to", "", "the agent to hand the run to (default: the run chooses among the agent's handoffs)")
	f.StringVar(&o.note, "note", "", "what the next agent should know first (and, without --to, what it must be able to do)")
	f.StringVar(&o.by, "by", "", "who hands the run over (kept in the audit trail)")
	f.StringVar(&o.reason, "reason", "", "why (kept in the audit trail)")
	f.BoolVar(&o.signal, "signal", false, "send a signal (fire and forget) instead of an update")
	f.StringVar(&o.runID, "run-id", "", "run id (default: the latest run of the workflow id)")
	f.BoolVar(&o.json, "json", false, "print the run's answer as JSON")
	return cmd
}

// request checks the flags before anything is dialled.
func (o handoffOptions) request() (signals.HandoffRequest, error) {
	req := signals.HandoffRequest{To: o.to, Note: o.note, Audit: signals.Audit{By: o.by, Reason: o.reason}}
	if o.toSet && strings.TrimSpace(o.to) == "" {
		return req, usageErrorf("--to is empty: name an agent of the worker's config, or leave --to out to let the run choose")
	}
	if err := req.Validate(); err != nil {
		return req, usageErrorf("%v", err)
	}
	if o.signal && o.json {
		return req, usageErrorf("--json prints the run's answer, and a --signal has none: drop one of them")
	}
	return req, nil
}

func (c *cli) handoff(ctx context.Context, cmd *cobra.Command, workflowID string, o handoffOptions, req signals.HandoffRequest) error {
	var res signals.HandoffResult
	if err := c.send(ctx, cmd, workflowID, o.runID, signals.Handoff, o.signal, req, &res); err != nil {
		if o.signal {
			return err
		}
		return fmt.Errorf("handoff of %s failed: %w", workflowID, err)
	}
	if o.signal {
		return nil
	}
	if o.json {
		return printJSON(cmd.OutOrStdout(), res)
	}
	printHandedOff(cmd.OutOrStdout(), workflowID, res)
	return nil
}

// printHandedOff says where the run went: the agent that took it (or that
// none did), the candidates refused and why, and the handoff path.
func printHandedOff(w io.Writer, workflowID string, res signals.HandoffResult) {
	if res.To != "" {
		fmt.Fprintf(w, "%s: handed off to %s (handoff node %s)\n", workflowID, cell(res.To), cell(res.NodeID))
	} else {
		fmt.Fprintf(w, "%s: no agent could take the run, so it stopped (handoff node %s)\n", workflowID, cell(res.NodeID))
	}
	path := "none"
	if len(res.HandoffPath) > 0 {
		path = oneLine(strings.Join(res.HandoffPath, " -> "))
	}
	fmt.Fprintf(w, "  handoff path: %s\n", path)
	if len(res.Refused) == 0 {
		fmt.Fprintf(w, "  refused:      none\n")
	}
	for i, r := range res.Refused {
		label := "  refused:      "
		if i > 0 {
			label = "                "
		}
		fmt.Fprintf(w, "%s%s: %s\n", label, cell(r.Agent), oneLine(r.Why))
	}
	fmt.Fprintf(w, "follow it with:\n  unstuck status %s\n  unstuck trace %s\n", workflowID, workflowID)
}
