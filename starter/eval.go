package main

import "github.com/spf13/cobra"

// newEvalCmd is `unstuck eval`: recorded runs as regression tests.
func newEvalCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Replay recorded runs as regression tests against a candidate config",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newEvalRunCmd(c))
	return cmd
}
