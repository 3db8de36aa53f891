package main

import (
	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/app"
)

// newRootCmd builds the whole command tree around one cli, which holds the
// connection flags and dials Temporal only when a command needs it.
func newRootCmd(c *cli) *cobra.Command {
	defaults := app.ClientOptions()
	root := &cobra.Command{
		Use:   "unstuck",
		Short: "Start durable AI agent runs on Temporal and inspect them",
		Long: `unstuck starts agent runs (the AgentWorkflow workflow) on a Temporal server
and reads their status and trace. A worker (bin/unstuck-worker --config
agents.yaml) must be polling the task queue for runs to make progress.

It is a thin client over Temporal: every command can also be done with the
plain temporal CLI, and each command's help shows how.

The server comes from --address / TEMPORAL_ADDRESS (default 127.0.0.1:7233),
the namespace from --namespace / TEMPORAL_NAMESPACE (default "default").
For a managed Temporal service or a cluster with TLS: TEMPORAL_API_KEY, or
TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (mTLS), with TEMPORAL_TLS_CA and
TEMPORAL_TLS_SERVER_NAME when needed.

Exit codes: 0 ok, 1 error, 2 usage error (for eval run also an eval that
could not run), 3 the agent stopped itself.`,
		Example: `  # start the dev server, the worker and a demo run
  make demo

  # start a run, wait for its result, then look at what happened
  unstuck run --agent travel --task "Book NYC to LAX on 2024-01-15" --wait
  unstuck status travel-20240115-093000-1a2b3c
  unstuck trace travel-20240115-093000-1a2b3c --format mermaid`,
		// Errors are printed once, by execute, as "unstuck: <message>".
		SilenceErrors: true,
		SilenceUsage:  true,
		// cobra only suggests by prefix unless given a distance.
		SuggestionsMinimumDistance: 2,
		// A root with Args and RunE turns an unknown command into a usage
		// error (exit 2) instead of cobra's plain error.
		Args: unknownCommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	root.PersistentFlags().StringVar(&c.address, "address", defaults.HostPort,
		"Temporal frontend host:port (env TEMPORAL_ADDRESS)")
	root.PersistentFlags().StringVar(&c.namespace, "namespace", defaults.Namespace,
		"Temporal namespace (env TEMPORAL_NAMESPACE)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageErrorf("%v", err)
	})

	root.AddCommand(
		newRunCmd(c),
		newStatusCmd(c),
		newTraceCmd(c),
		newFollowCmd(c),
		newChatCmd(c),
		newReplyCmd(c),
		newSayCmd(c),
		newApproveCmd(c),
		newPeopleCmd(),
		newInboxCmd(c),
		newBudgetCmd(c),
		newEditCmd(c),
		newHandoffCmd(c),
		newForkCmd(c),
		newConsoleCmd(c),
		newLoadCmd(c),
		newEvalCmd(c),
		newReplayCmd(c),
		newDemoCmd(),
	)
	return root
}

// unknownCommand is the root's Args: any argument left to the root is a
// command it does not have, a usage error with cobra's nearest suggestion.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	hint := ""
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		hint = "; did you mean " + s[0] + "?"
	}
	return usageErrorf("unknown command %q%s", args[0], hint)
}
