package testsuite

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// approval: {by: [finance], approvers: 2} on the real server, in both
// shapes: only signed approvals of finance's people count, the payment
// runs once two distinct people approved it, and every attack of issue
// 52 is refused with nothing paid: a plain approval, one from outside the
// group, a forged signature, a signature sent again or made for another
// call, a second approval by the same person, an approval of a call no
// longer waiting. Each history is kept.

// people are finance (ana, bob) and ops (carol), with their keys.
type people struct {
	keys map[string]ed25519.PrivateKey
	dir  string // their private key files, NAME.key
}

func newPeople(t *testing.T) *people {
	p := &people{keys: map[string]ed25519.PrivateKey{}, dir: t.TempDir()}
	for _, name := range []string{"ana", "bob", "carol"} {
		_, key, err := ed25519.GenerateKey(nil)
		require.NoError(t, err)
		p.keys[name] = key
		text, err := sign.EncodePrivateKey(key)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p.file(name), text, 0o600))
	}
	return p
}

func (p *people) file(name string) string { return filepath.Join(p.dir, name+".key") }

// yaml is the people: section of the config.
func (p *people) yaml() string {
	var keys []string
	for _, name := range []string{"ana", "bob", "carol"} {
		keys = append(keys, name+": "+config.KeyText(p.keys[name].Public().(ed25519.PublicKey)))
	}
	return "people:\n  groups: { finance: [ana, bob], ops: [carol] }\n  keys: { " + strings.Join(keys, ", ") + " }\n"
}

// approval is by's decision on call, signed with signer's key for the
// run's chain, as unstuck approve makes it.
func (p *people) approval(t *testing.T, run client.WorkflowRun, signer, by, call, decision string) signals.ApproveRequest {
	req := signals.ApproveRequest{CallID: call, Decision: decision, Audit: signals.Audit{By: by}}
	s, err := sign.Sign(p.keys[signer], sign.For(run.GetRunID(), run.GetID(), "pay", req), signer, time.Now())
	require.NoError(t, err)
	req.Signature = s
	return req
}

func payByTool(url string) string {
	return `  - { name: pay, http: { method: POST, url: "` + url + `/pay" }, effect: write, approval: { by: [finance], approvers: 2 },
      parameters: { type: object, required: [amount], properties: { amount: { type: integer } } } }
`
}

// payWithTwoPeople runs payer: its first payment waits; every attack is
// refused; ana (through the CLI) and bob approve and it runs once; the
// second payment waits, bob's approval of the first sent again settles
// nothing, and ana rejects the second.
func payWithTwoPeople(t *testing.T, s *stack, tools *toolServer, ppl *people, input, history string) {
	t.Helper()
	run := s.start(workflows.AgentInput{Agent: "payer", Task: "pay", Input: []byte(input)})
	pending := s.pendingApproval(run)
	require.Equal(t, "pay", pending.Tool)
	call := pending.CallID
	refused := func(req signals.ApproveRequest, want string) {
		t.Helper()
		err := s.update(run, signals.Approve, req)
		require.ErrorContains(t, err, want)
	}
	cli := func(args ...string) (string, error) {
		args = append(args, "--address", serverAddress)
		out, err := exec.Command(filepath.Join(binaries(t), "unstuck"), args...).CombinedOutput()
		return string(out), err
	}

	refused(signals.ApproveRequest{CallID: call, Decision: signals.DecisionApprove, Audit: signals.Audit{By: "ana"}}, `must carry a "signature"`)
	refused(ppl.approval(t, run, "carol", "carol", call, signals.DecisionApprove), "carol is not in finance, who answer for pay")
	forged := ppl.approval(t, run, "carol", "ana", call, signals.DecisionApprove)
	forged.Signature = strings.Replace(forged.Signature, "v1.carol.", "v1.ana.", 1) // carol's signature, claimed as ana's
	refused(forged, "the signature does not match this approval")
	forOther := ppl.approval(t, run, "ana", "ana", "n999", signals.DecisionApprove)
	forOther.CallID = call // made for another call
	refused(forOther, "the signature does not match this approval")

	out, err := cli("approve", run.GetID(), "--call-id", call, "--decision", "approve", "--as", "ana", "--key", ppl.file("ana"))
	require.NoError(t, err, out)
	require.Contains(t, out, "approved by 1 of 2 people")
	out, err = cli("approve", run.GetID(), "--call-id", call, "--decision", "approve", "--as", "ana", "--key", ppl.file("ana"))
	require.Error(t, err)
	require.Contains(t, out, "ana already approved call "+call)
	// The inbox's --group keeps the calls the people group may answer
	// now: finance's, not yet ops's; the call says ana approved it.
	require.Eventually(t, func() bool {
		out, err := cli("inbox", "--group", "finance", "--json")
		return err == nil && strings.Contains(out, `"workflow_id": "`+run.GetID()+`"`)
	}, 20*time.Second, 200*time.Millisecond, "finance's inbox lists the call")
	out, err = cli("inbox", "--group", "ops", "--json")
	require.NoError(t, err, out)
	require.NotContains(t, out, run.GetID(), "ops is not asked before finance's deadline")
	st := s.status(run)
	require.Equal(t, []string{"ana"}, st.PendingApprovals[0].ApprovedBy)
	anaAgain := ppl.approval(t, run, "ana", "ana", call, signals.DecisionApprove)
	refused(anaAgain, "ana already approved call "+call)
	require.Empty(t, tools.requests("/pay"), "one of two: nothing paid")

	bobs := ppl.approval(t, run, "bob", "bob", call, signals.DecisionApprove)
	var res signals.ApproveResult
	require.NoError(t, s.updateInto(run, signals.Approve, bobs, &res))
	require.Equal(t, signals.ApproveResult{CallID: call, Decision: signals.DecisionApprove, Approved: 2, Needed: 2}, res)

	// The second payment waits; the first no longer does.
	var second signals.PendingApproval
	require.Eventually(t, func() bool {
		st := s.status(run)
		if len(st.PendingApprovals) == 1 && st.PendingApprovals[0].CallID != call {
			second = st.PendingApprovals[0]
		}
		return second.CallID != ""
	}, 20*time.Second, 100*time.Millisecond)
	require.Len(t, tools.requests("/pay"), 1, "the first payment ran")
	refused(bobs, "call "+call+" is completed, not awaiting approval") // the same signature sent again
	out, err = cli("approve", run.GetID(), "--call-id", second.CallID, "--decision", "reject", "--as", "ana", "--key", ppl.file("ana"), "--reason", "paid already")
	require.NoError(t, err, out)
	require.Contains(t, out, "settled (reject)")
	_, err = s.result(run)
	require.NoError(t, err)
	require.Len(t, tools.requests("/pay"), 1, "paid once: the replayed approval settled nothing, the reject ran nothing")

	tr := s.trace(run)
	var by []string
	for _, n := range nodesOf(tr, signals.KindApproval) {
		by = append(by, n.By)
	}
	require.Equal(t, []string{"ana", "bob", "ana"}, by, "each approval names its person")
	recordAndReplay(t, run, history)
}

func TestApprovalPeopleFreeFormOnTheServer(t *testing.T) {
	t.Parallel()
	tools, ppl := payServer(t), newPeople(t)
	cfg := `
model: { base_url: "{{MODEL}}", name: small }
tools:
` + payByTool(tools.URL) + `agents:
  - { name: payer, instructions: Pay., tools: [pay] }
` + ppl.yaml()
	s := newStack(t, cfg, map[string]scriptedmodel.Script{"small": scriptedmodel.Sequence(
		scriptedmodel.CallsTurn(scriptedmodel.NewCall("pay", map[string]int{"amount": 5000})),
		scriptedmodel.CallsTurn(scriptedmodel.NewCall("pay", map[string]int{"amount": 5000})),
		scriptedmodel.Reply("paid"),
	)})
	payWithTwoPeople(t, s, tools, ppl, `{}`, "approval_people_free_form")
}

func TestApprovalPeopleGraphOnTheServer(t *testing.T) {
	t.Parallel()
	tools, ppl := payServer(t), newPeople(t)
	cfg := `
model: { base_url: "{{MODEL}}", name: unused }
tools:
` + payByTool(tools.URL) + `agents:
  - name: payer
    instructions: Pay.
    tools: [pay]
    graph:
      start: P
      nodes:
        P: { tool: pay, args: { amount: "†input.amount" }, output_path: "†state.paid" }
        Q: { tool: pay, args: { amount: "†input.amount" }, output_path: "†state.again" }
        E: { end: true, output: "†state.paid" }
      edges: [ { from: P, to: Q }, { from: Q, to: E } ]
` + ppl.yaml()
	s := newStack(t, cfg, nil)
	payWithTwoPeople(t, s, tools, ppl, `{"amount": 5000}`, "approval_people_graph")
}

// A config naming an unknown group is refused when the worker loads it,
// naming the field.
func TestAnUnknownGroupIsRefusedAtLoad(t *testing.T) {
	t.Parallel()
	ppl := newPeople(t)
	path := filepath.Join(t.TempDir(), "agents.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
model: { base_url: "http://127.0.0.1:1/v1", name: m }
tools:
  - { name: pay, http: { url: "http://127.0.0.1:1/pay" }, effect: write, approval: { by: [legal] } }
agents:
  - { name: payer, instructions: Pay., tools: [pay] }
`+ppl.yaml()), 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "unstuck-worker"), "--config", path, "--task-queue", "never-served")
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+serverAddress)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the worker refuses the config")
	require.Contains(t, string(out), `tools[0].approval.by[0]: unknown group "legal" (known: finance, ops)`)
}

// A whole group answered with --as on the real server: each run's call
// is approved by ana's signature (the tool from the listing, the chain
// read by describe: the dev server's listing does not give a run's first
// run id), and each run records ana's approval.
func TestASignedGroupAnswerOnTheServer(t *testing.T) {
	t.Parallel()
	tools, ppl := payServer(t), newPeople(t)
	cfg := `
model: { base_url: "{{MODEL}}", name: unused }
tools:
  - { name: pay, http: { method: POST, url: "` + tools.URL + `/pay" }, effect: write, approval: { by: [finance] },
      parameters: { type: object, required: [amount], properties: { amount: { type: integer } } } }
agents:
  - name: payer
    instructions: Pay.
    tools: [pay]
    graph:
      start: P
      nodes: { P: { tool: pay, args: { amount: "†input.amount" }, output_path: "†state.paid" }, E: { end: true, output: "†state.paid" } }
      edges: [ { from: P, to: E } ]
` + ppl.yaml()
	s := newStack(t, cfg, nil)
	unstuck := filepath.Join(binaries(t), "unstuck")
	var runs []client.WorkflowRun
	for range 2 {
		run := s.start(workflows.AgentInput{Agent: "payer", Task: "pay", Input: []byte(`{"amount": 70}`)})
		s.pendingApproval(run)
		runs = append(runs, run)
	}
	var group string
	require.Eventually(t, func() bool {
		out, err := exec.Command(unstuck, "inbox", "--agent", "payer", "--json", "--address", serverAddress).CombinedOutput()
		var in struct {
			Groups []struct {
				ID    string `json:"id"`
				Count int    `json:"count"`
			} `json:"groups"`
		}
		if err != nil || json.Unmarshal(out, &in) != nil || len(in.Groups) != 1 || in.Groups[0].Count != 2 {
			return false
		}
		group = in.Groups[0].ID
		return true
	}, 20*time.Second, 200*time.Millisecond, "both calls are listed in one group")
	out, err := exec.Command(unstuck, "approve", "--group", group, "--decision", "approve", "--as", "ana", "--key", ppl.file("ana"),
		"--agent", "payer", "--address", serverAddress).CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "2 approved, 0 skipped, 0 failed")
	for _, run := range runs {
		_, err := s.result(run)
		require.NoError(t, err)
		approvals := nodesOf(s.trace(run), signals.KindApproval)
		require.Len(t, approvals, 1)
		require.Equal(t, "ana", approvals[0].By)
	}
	require.Len(t, tools.requests("/pay"), 2, "each run paid once")
}
