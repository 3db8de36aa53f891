package testsuite

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// A graph's human node and the ladder's human rung that name who may
// reply (approval: {by: [...]}) on the real server, in both shapes: a
// plain reply and one signed by someone outside the group are refused,
// the inbox lists the wait for the group that may answer it, and a reply
// signed through `unstuck reply --as` lets the run go on. Each history
// is kept.

const replyPeopleConfig = `
model: { base_url: "{{MODEL}}", name: waits }
tools:
  - { name: busy, http: { url: "{{TOOLS}}/busy" }, parameters: { type: object } }
agents:
  - name: graph-asked
    policies: { human_timeout: 2h }
    graph:
      start: H
      nodes:
        H: { human: true, approval: { by: [ops, finance], timeout: 1h, then: escalate } }
        E: { end: true, output: "†state.human" }
      edges: [ { from: H, to: E } ]
  - name: free-rung-asked
    instructions: Ask until it is free.
    tools: [busy]
    policies: { loop: { window: 16, repeats: 3 }, escalation: [human, stop], human_timeout: 1h, human_approval: { by: [ops] } }
  - name: graph-rung-asked
    tools: [busy]
    policies: { loop: { window: 16, repeats: 3 }, escalation: [human, stop], human_timeout: 1h, human_approval: { by: [ops] } }
    graph:
      start: T
      nodes: { T: { tool: busy, output_path: "†state.busy" }, E: { end: true } }
      edges: [ { from: T, to: E, when: "ok" }, { from: T, to: T } ]
`

func TestHumanWaitsThatNameWhoRepliesOnTheServer(t *testing.T) {
	t.Parallel()
	runParity(t, []parityCell{
		{capability: "a reply only from the named group", shape: graph, variant: "human node", run: func(t *testing.T) {
			replyFromTheGroup(t, "graph-asked", nil, `{"ok":true}`, "human_people_graph")
		}},
		{capability: "a reply only from the named group", shape: freeForm, variant: "human rung", run: func(t *testing.T) {
			replyFromTheGroup(t, "free-rung-asked", askUntilAPersonReplies, `{"ok":true}`, "human_people_free_form")
		}},
		{capability: "a reply only from the named group", shape: graph, variant: "human rung", run: func(t *testing.T) {
			replyFromTheGroup(t, "graph-rung-asked", nil, `{"ok":true}`, "human_people_graph_rung")
		}},
	})
}

func replyFromTheGroup(t *testing.T, agent string, script scriptedmodel.Script, wantOutput, history string) {
	tools, ppl := newWaitsToolServer(t), newPeople(t)
	cfg := strings.ReplaceAll(replyPeopleConfig, "{{TOOLS}}", tools.URL) + ppl.yaml()
	scripts := map[string]scriptedmodel.Script{}
	if script != nil {
		scripts["waits"] = script
	}
	s := newStack(t, cfg, scripts)
	run := s.start(workflows.AgentInput{Agent: agent, Task: "wait for a person"})
	s.awaitPhase(run, signals.PhaseAwaitingHuman)
	var pending *signals.PendingReply
	require.Eventually(t, func() bool { pending = s.status(run).PendingReply; return pending != nil }, 20*time.Second, 100*time.Millisecond)
	require.Equal(t, []string{"ops"}, pending.Answering, "ops is asked first")

	signed := func(signer string) signals.ReplyRequest {
		req := signals.ReplyRequest{Text: "go on", Output: []byte(`{"ok":true}`), Audit: signals.Audit{By: signer}}
		sig, err := sign.SignReply(ppl.keys[signer], sign.ForReply(run.GetRunID(), run.GetID(), pending.NodeID, req), signer, time.Now())
		require.NoError(t, err)
		req.Signature = sig
		return req
	}
	require.ErrorContains(t, s.update(run, signals.Reply, signals.ReplyRequest{Text: "go on", Audit: signals.Audit{By: "carol"}}), `must carry a "signature"`)
	require.ErrorContains(t, s.update(run, signals.Reply, signed("ana")), "ana is not in ops")

	cli := func(args ...string) (string, error) {
		out, err := exec.Command(filepath.Join(binaries(t), "unstuck"), append(args, "--address", serverAddress)...).CombinedOutput()
		return string(out), err
	}
	out, err := cli("inbox", "--group", "ops", "--json")
	require.NoError(t, err, out)
	require.Contains(t, out, `"workflow_id": "`+run.GetID()+`"`, "ops's inbox lists the wait")
	require.Contains(t, out, `"node_id": "`+pending.NodeID+`"`)
	out, err = cli("inbox", "--group", "finance", "--json")
	require.NoError(t, err, out)
	require.NotContains(t, out, run.GetID(), "finance is not asked yet")

	out, err = cli("reply", run.GetID(), "--text", "go on", "--output", `{"ok":true}`, "--as", "carol", "--key", ppl.file("carol"))
	require.NoError(t, err, out)
	require.Contains(t, out, "it settles node "+pending.NodeID)
	res, err := s.result(run)
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	if agent == "graph-asked" {
		require.JSONEq(t, wantOutput, string(res.Output))
	}
	replied := nodeOf(t, s.trace(run), pending.NodeID)
	var reply signals.ReplyRequest
	require.NoError(t, json.Unmarshal(replied.Output, &reply))
	require.Equal(t, "carol", reply.By, "the human node keeps who replied")
	require.NotEmpty(t, reply.Signature, "and the proof")
	recordAndReplay(t, run, history)
}
