package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/signals"
)

// What a model, a tool or a person wrote reaches the terminal with its
// controls written out, in every kind of output the CLI prints.
func TestTheCLIWritesOutTerminalControls(t *testing.T) {
	const tool, failure = "look\x1b]0;pwned\x07", "\x1b[2Jwiped\nnode n9 forged\u202e"
	node := signals.Node{ID: "n3", Kind: signals.KindCall, Tool: tool, Status: signals.StatusFailed, Error: failure,
		Args: json.RawMessage("{\"q\": \"\u009b2J\"}")}
	tr := signals.Trace{Nodes: []signals.Node{node}}
	st := signals.Status{Agent: "a", LastError: failure, Breakers: map[string]string{tool: "open"},
		PendingApprovals: []signals.PendingApproval{{CallID: "n3", Tool: tool}}, Outage: &signals.OutageStatus{Of: tool}}
	for _, tc := range []struct {
		name  string
		print func(b *strings.Builder) error
		shows []string
	}{
		{"follow", func(b *strings.Builder) error {
			return printEvent(b, feed.Event{ID: "x", Type: feed.TypeNode, Node: &node})
		}, []string{`look\x1b]0;pwned\x07 failed: \x1b[2Jwiped node n9 forged\u202e` + "\n"}},
		{"follow's end", func(b *strings.Builder) error {
			return printEvent(b, feed.Event{ID: "x", Type: feed.TypeEnd, Result: json.RawMessage(`{"e": "` + "\u009b" + `"}`)})
		}, []string{`{"e": "\u009b"}`}},
		{"status", func(b *strings.Builder) error { return renderStatus(b, st, time.Time{}) }, []string{`\x1b[2Jwiped node n9 forged\u202e`, `look\x1b]0;pwned\x07`, `look\x1b]0;pwned\x07 down since`}},
		{"trace", func(b *strings.Builder) error { return renderTable(b, tr) }, []string{`look\x1b]0;pwned\x07`}},
		{"mermaid", func(b *strings.Builder) error { return renderMermaid(b, tr) }, []string{`look\x1b]0;pwned\x07`}},
		{"JSON", func(b *strings.Builder) error { return printJSON(b, node) }, []string{`"tool": "look\u001b]0;pwned\u0007"`, `\u202e`}},
		{"a run's output", func(b *strings.Builder) error { return printRawJSON(b, node.Args) }, []string{`"q": "\u009b2J"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			require.NoError(t, tc.print(&b))
			for _, c := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
				require.NotContains(t, b.String(), c)
			}
			for _, want := range tc.shows {
				require.Contains(t, b.String(), want)
			}
		})
	}
}
