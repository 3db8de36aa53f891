package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// humanGraph is withGraph with human node H taking approval (written
// after "approval: "; "" none) on line 10.
func humanGraph(approval string) string {
	h := "        H: {human: true}"
	if approval != "" {
		h = "        H: {human: true, approval: " + approval + "}"
	}
	return withGraph("      start: H", "      nodes:", h, "        E: {end: true}", "      edges: [{from: H, to: E}]")
}

// humanRung is withAgent with agent x whose human rung takes approval.
func humanRung(approval string, rungs string) string {
	return withAgent("  - name: x", "    tools: [a]", "    policies:", "      escalation: "+rungs, "      human_approval: "+approval)
}

func TestHumanApprovalRefused(t *testing.T) {
	runProblems(t, []problemCase{
		{"a mode, not a block", humanGraph("always") + peopleBlock, 0, "agents[0].graph.nodes.H.approval", `approval "always": a wait for a reply takes the block {when, by, timeout, then}`},
		{"two approvers of a reply", humanGraph("{by: [finance], approvers: 2}") + peopleBlock, 0, "agents[0].graph.nodes.H.approval.approvers", "a reply is one person's answer"},
		{"an unknown group", humanGraph("{by: [legal]}") + peopleBlock, 0, "agents[0].graph.nodes.H.approval.by[0]", `unknown group "legal" (known: finance, ops)`},
		{"by without people", humanGraph("{by: [ops]}"), 0, "agents[0].graph.nodes.H.approval.by", "approval.by names groups but the file has no people:"},
		{"escalate with one group", humanGraph("{by: [ops], timeout: 1h, then: escalate}") + peopleBlock, 0, "agents[0].graph.nodes.H.approval.then", "then: escalate needs two groups or more in by:"},
		{"a when that is no condition", humanGraph("{when: \"state.x +\"}"), 0, "agents[0].graph.nodes.H.approval.when", ""},
		{"on a tool node", withGraph("      start: A", "      nodes:", "        A: {tool: a, approval: {by: [ops]}}", "        E: {end: true}", "      edges: [{from: A, to: E}]") + peopleBlock,
			0, "agents[0].graph.nodes.A.approval", "approval applies to human nodes only"},
		{"a rung whose deadline approves", humanRung("{by: [ops], timeout: 1h, then: approve}", "[human, stop]") + peopleBlock, 0, "agents[0].policies.human_approval.then", "the human rung's deadline cannot approve"},
		{"a rung the ladder does not list", humanRung("{by: [ops]}", "[retry, stop]") + peopleBlock, 0, "agents[0].policies.human_approval", "policies.escalation does not list"},
	})
}

// A run carries the groups its human waits name, as it does its tools',
// and its spec keeps each block.
func TestHumanApprovalResolved(t *testing.T) {
	f, err := parse(humanRung("{by: [ops, finance], timeout: 2h, then: escalate}", "[human, stop]") + peopleBlock)
	require.NoError(t, err)
	r, err := f.Resolve("x", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"ops", "finance"}, r.Agent.Policies.HumanApproval.Groups())
	require.Equal(t, 2, r.Agent.Policies.HumanApproval.Levels())
	require.ElementsMatch(t, []string{"ana", "bob", "carol"}, r.People.Members([]string{"ops", "finance"}))

	f, err = parse(humanGraph("{when: \"state.risk > 3\", by: [ops], timeout: 30m}") + peopleBlock)
	require.NoError(t, err)
	r, err = f.Resolve("x", nil)
	require.NoError(t, err)
	h := r.Agent.Graph.Nodes["H"].Approval
	require.Equal(t, "state.risk > 3", h.When)
	require.True(t, h.Named())
	require.Equal(t, []string{"carol"}, r.People.Members([]string{"ops"}))
	require.NotContains(t, r.People.Groups, "finance", "only the groups named")
}
