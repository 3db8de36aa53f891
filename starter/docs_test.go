package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/docstest"
)

// Every `unstuck ...` command README.md and docs/*.md name, in their
// shell blocks and inline code, names commands and flags the CLI has
// (those its --help lists).
func TestDocsNameRealUnstuckCommandsAndFlags(t *testing.T) {
	root := newRootCmd(&cli{})
	checked := docstest.CheckCommands(t, "unstuck", func(args []string) []string {
		return checkUnstuckCommand(root, args)
	})
	require.Greater(t, checked, 20, "the pages' unstuck commands were not found")
}

// checkUnstuckCommand walks args down the command tree: words name
// subcommands until the first argument, and every flag, long or short,
// must be one of the command's own or inherited ones, not hidden.
func checkUnstuckCommand(root *cobra.Command, args []string) []string {
	var problems []string
	cmd, positional := root, false
	for i := 0; i < len(args); i++ {
		word := docstest.FlagWord(args[i])
		switch {
		case word == "--" || word == "":
			continue
		case strings.HasPrefix(word, "-"):
			f := lookupFlag(cmd, word)
			if f == nil || f.Hidden {
				problems = append(problems, fmt.Sprintf("%s has no flag %s (see %s --help)", cmd.CommandPath(), word, cmd.CommandPath()))
				continue
			}
			if !strings.Contains(word, "=") && f.NoOptDefVal == "" {
				i++ // its value
			}
		case !positional && strings.HasPrefix(word, "<") && strings.HasSuffix(word, ">"):
			return problems // a placeholder for any command: unstuck <command> --help
		case !positional && cmd.HasSubCommands():
			sub, _, err := cmd.Find([]string{word})
			if err != nil || sub == cmd {
				problems = append(problems, fmt.Sprintf("%s has no command %q", cmd.CommandPath(), word))
				return problems
			}
			cmd = sub
		case cmd == root:
			problems = append(problems, fmt.Sprintf("unstuck has no command %q", word))
			return problems
		default:
			positional = true
		}
	}
	return problems
}

func lookupFlag(cmd *cobra.Command, word string) *pflag.Flag {
	cmd.InitDefaultHelpFlag()
	name, _, _ := strings.Cut(word, "=")
	if long, ok := strings.CutPrefix(name, "--"); ok {
		return cmd.Flag(long)
	}
	short := strings.TrimPrefix(name, "-")
	if len(short) != 1 {
		return nil
	}
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.InheritedFlags()} {
		if f := fs.ShorthandLookup(short); f != nil {
			return f
		}
	}
	return nil
}

// The walk refuses what it should.
func TestDocsUnstuckCommandRules(t *testing.T) {
	root := newRootCmd(&cli{})
	ok := func(line string) {
		t.Helper()
		cmds := docstest.Commands(line, 1)
		require.Empty(t, checkUnstuckCommand(root, cmds[0].Args[1:]), line)
	}
	bad := func(line, want string) {
		t.Helper()
		cmds := docstest.Commands(line, 1)
		require.Len(t, cmds, 1)
		problems := checkUnstuckCommand(root, cmds[0].Args[1:])
		require.NotEmpty(t, problems, line)
		require.Contains(t, strings.Join(problems, "\n"), want)
	}
	ok(`bin/unstuck run --agent travel --task "Book NYC" --wait`)
	ok(`unstuck trace trip-1 [--format table|json|mermaid]`)
	ok(`unstuck --address 127.0.0.1:7233 status trip-1 --json -h`)
	ok(`unstuck demo edit --once`)
	ok(`unstuck <command> --help`)
	ok(`unstuck budget RUN --tool-calls-per-tool search=5 --stop`)
	ok(`FOO=1 unstuck console --listen=127.0.0.1:8234`)
	bad(`unstuck run --agent travel --taks x`, "unstuck run has no flag --taks")
	bad(`unstuck runn --agent travel`, `unstuck has no command "runn"`)
	bad(`unstuck demo edits`, `unstuck demo has no command "edits"`)
	bad(`unstuck status trip-1 -x`, "unstuck status has no flag -x")
	bad(`unstuck status trip-1 --format json`, "unstuck status has no flag --format")
}
