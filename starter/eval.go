package main

import "github.com/spf13/cobra"

// newEvalCmd is `unstuck eval`: recorded runs as regression tests.
func newEvalCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Replay recorded runs as regression tests against a candidate config",
		Long: `eval turns recorded runs into regression tests: eval run replays a
directory of case files as real runs against a candidate config, its tools
answered from the recordings, and prints a scorecard (docs/eval.md).`,
		Example: `  unstuck eval run evals/ --config candidate.yaml --repeat 3`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newEvalRunCmd(c))
	return cmd
}
