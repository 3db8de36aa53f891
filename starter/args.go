package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// Positional-argument checks that report usage errors (exit 2) in words a
// user can act on, rather than cobra's "accepts 1 arg(s)".

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments, got %q (quote text with spaces, e.g. --task \"...\")",
			cmd.CommandPath(), strings.Join(args, " "))
	}
	return nil
}

func oneWorkflowID(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return usageErrorf("%s needs a WORKFLOW_ID argument", cmd.CommandPath())
	case len(args) > 1:
		return usageErrorf("%s takes one WORKFLOW_ID, got %d arguments", cmd.CommandPath(), len(args))
	case strings.TrimSpace(args[0]) == "":
		return usageErrorf("%s: WORKFLOW_ID is empty", cmd.CommandPath())
	}
	return nil
}
