package main

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/docstest"
)

// Every `unstuck-worker ...` command README.md and docs/*.md name, in
// their shell blocks and inline code, uses flags the worker has (those
// its --help lists).
func TestDocsNameRealWorkerFlags(t *testing.T) {
	fs, _ := newFlagSet()
	checked := docstest.CheckCommands(t, "unstuck-worker", func(args []string) []string {
		return checkWorkerFlags(fs, args)
	})
	require.Greater(t, checked, 5, "the pages' unstuck-worker commands were not found")
}

// checkWorkerFlags checks each flag of args is one of fs's (as the flag
// package reads them: -x or --x, a value after it or after =, none for
// a boolean).
func checkWorkerFlags(fs *flag.FlagSet, args []string) []string {
	var problems []string
	for i := 0; i < len(args); i++ {
		word := docstest.FlagWord(args[i])
		if !strings.HasPrefix(word, "-") || word == "--" {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(word, "-"), "=")
		if name == "help" || name == "h" {
			continue // the flag package's own: prints the usage
		}
		f := fs.Lookup(name)
		if f == nil {
			problems = append(problems, fmt.Sprintf("unstuck-worker has no flag %s (see unstuck-worker --help)", word))
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); (!ok || !b.IsBoolFlag()) && !hasValue {
			i++ // its value
		}
	}
	return problems
}

func TestDocsWorkerFlagRules(t *testing.T) {
	fs, _ := newFlagSet()
	args := func(line string) []string { return docstest.Commands(line, 1)[0].Args[1:] }
	require.Empty(t, checkWorkerFlags(fs, args(`OPENAI_API_KEY=x bin/unstuck-worker --config agents.yaml [--task-queue agents] --bootstrap-current=false --print-build-id`)))
	require.Empty(t, checkWorkerFlags(fs, args(`unstuck-worker --help`)))
	require.Equal(t, []string{"unstuck-worker has no flag --queue (see unstuck-worker --help)"},
		checkWorkerFlags(fs, args(`unstuck-worker --config agents.yaml --queue agents`)))
	require.Len(t, checkWorkerFlags(fs, args(`unstuck-worker --config --metrics 127.0.0.1:9090`)), 0,
		"--metrics is --config's value")
}
