package docstest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNotPrinted(t *testing.T) {
	printed := "started workflow AgentWorkflow\n  run id:      01a2-5179\nQuery result:\n  QueryResult  {\"agent\":\"concierge\",\"conversation\":true,\"phase\":\"awaiting_user\",\"step\":2}\n"
	for shown, missing := range map[string][]string{
		"started workflow AgentWorkflow\n\n  run id:      …\n":                   nil,
		"QueryResult  {\"agent\":\"concierge\",…,\"phase\":\"awaiting_user\",…}": nil,
		"…\"step\":2}": nil,
		"QueryResult  {…\"phase\":\"running\"…}": {"QueryResult  {…\"phase\":\"running\"…}"},
		"started workflow":                       {"started workflow"}, // a whole line, not a part
		"run id: 99…":                            {"run id: 99…"},
		"…run…id…:…0…1…":                         nil,
		"Query result:\nResult  map[queued:1]":   {"Result  map[queued:1]"},
	} {
		require.Equal(t, missing, NotPrinted(shown, printed), shown)
	}
}

func TestOutputOf(t *testing.T) {
	p := Page{Path: "x.md", Lines: []string{
		"```sh", "echo hi", "```", "", "```text", "hi", "```",
		"```sh", "echo no", "```", "Prose between.", "```text", "no", "```",
	}}
	blocks := p.Blocks()
	out, ok := p.OutputOf(blocks[0])
	require.True(t, ok)
	require.Equal(t, "hi\n", out.Body)
	_, ok = p.OutputOf(blocks[2])
	require.False(t, ok, "prose between: not its output")
	_, ok = p.OutputOf(blocks[3])
	require.False(t, ok, "the last block has none")
}
