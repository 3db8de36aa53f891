package main

import "github.com/spf13/cobra"

// newEvalCmd is `unstuck eval`: recorded runs as regression tests.
func newEvalCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Turn recorded runs into regression tests and run them",
		Long: `eval turns recorded runs into regression tests (docs/eval.md):
  eval export  writes a case file per closed run of a visibility query: the
               agent, task and input, what its tools answered, what it did
  eval run     replays a directory of case files as real runs against a
               candidate config, its tools answered from the recordings,
               and prints a scorecard`,
		Example: `  unstuck eval export --query "AgentName = 'travel' AND ExecutionStatus = 'Completed'" --to evals/
  unstuck eval run evals/ --config candidate.yaml --repeat 3`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newEvalExportCmd(c), newEvalRunCmd(c))
	return cmd
}
