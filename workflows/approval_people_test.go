package workflows

import (
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/signals"
)

// approval: {by, approvers}: only signed approvals of the tool's first
// group's members settle a call, and under approvers: N the call runs
// once N distinct people approved, each approval an approval node naming
// its person.

// The test environment's workflow id; its runs have no first run id.
const testWorkflowID, testChain = "default-test-workflow-id", ""

var personKey = testutil.PersonKey

// Seeds of the people's keys.
const (
	ana byte = iota
	bob
	carol
)

// peopleSpec is approvalSpec with b answering to finance (ana, bob), then
// ops (carol), needed of them.
func peopleSpec(needed int) *config.Resolved {
	spec := approvalSpec()
	for i := range spec.Tools {
		if spec.Tools[i].Name == "b" {
			spec.Tools[i].Approval = config.Approval{Mode: "always", People: &config.Approvers{By: []string{"finance", "ops"}, Count: needed}}
		}
	}
	pub := func(seed byte) string { return config.KeyText(personKey(seed).Public().(ed25519.PublicKey)) }
	spec.People = &config.People{
		Groups: map[string][]string{"finance": {"ana", "bob"}, "ops": {"carol"}},
		Keys:   map[string]string{"ana": pub(ana), "bob": pub(bob), "carol": pub(carol)},
	}
	return spec
}

// signedApproval is by's decision on call, signed with the key of seed.
func signedApproval(t *testing.T, seed byte, by, call, decision string) signals.ApproveRequest {
	req := signals.ApproveRequest{CallID: call, Decision: decision, Audit: signals.Audit{By: by}}
	s, err := sign.Sign(personKey(seed), sign.For(testChain, testWorkflowID, "b", req), by, time.Unix(1796652000, 0))
	require.NoError(t, err)
	req.Signature = s
	return req
}

// peopleFreeForm runs a free-form step calling b (n3) and a.
func peopleFreeForm(t *testing.T, needed int, decide func(h *harness)) (*harness, error) {
	return peopleFreeFormWith(t, func(spec *config.Resolved) {
		for i := range spec.Tools {
			if spec.Tools[i].Name == "b" {
				spec.Tools[i].Approval.People.Count = needed
			}
		}
	}, decide)
}

// peopleFreeFormWith is peopleFreeForm with the spec of one approver
// changed by change.
func peopleFreeFormWith(t *testing.T, change func(*config.Resolved), decide func(h *harness)) (*harness, error) {
	spec := peopleSpec(0)
	change(spec)
	h := newHarness(t, spec, []activities.ModelReply{
		{ToolCalls: []activities.ToolCall{call("k1", "b", `{"seat": "12A"}`), call("k2", "a", `{"q": 1}`)}},
		{Content: "done"},
	}, echoTool)
	decide(h)
	_, err := h.run(AgentInput{Agent: "agent", Task: "book"})
	return h, err
}

// peopleGraph walks a one-node graph calling b (n2); a graph whose call
// did not run ends without the state its end wants.
func peopleGraph(t *testing.T, needed int, decide func(h *harness)) (*harness, error) {
	return peopleGraphWith(t, func(spec *config.Resolved) {
		for i := range spec.Tools {
			if spec.Tools[i].Name == "b" {
				spec.Tools[i].Approval.People.Count = needed
			}
		}
	}, decide)
}

// peopleGraphWith is peopleGraph with the spec changed by change.
func peopleGraphWith(t *testing.T, change func(*config.Resolved), decide func(h *harness)) (*harness, error) {
	spec := peopleSpec(0)
	change(spec)
	spec.Agent.Graph = oneNodeGraph("b", map[string]any{"seat": "12A"})
	h := newHarness(t, spec, nil, echoTool)
	decide(h)
	_, err := h.run(AgentInput{Agent: "agent", Task: "walk"})
	return h, err
}

var shapes = map[string]func(*testing.T, int, func(*harness)) (*harness, error){"free-form": peopleFreeForm, "graph": peopleGraph}

func approvalsBy(h *harness) []string {
	var by []string
	for _, n := range nodesByKind(h.trace(), signals.KindApproval) {
		by = append(by, n.By)
	}
	return by
}

func ignoredSignals(h *harness) []string {
	var why []string
	for _, n := range h.trace().Nodes {
		if n.Kind == signals.KindHuman && n.Status == signals.StatusSkipped {
			why = append(why, n.Error)
		}
	}
	return why
}

func TestTwoPersonRuleInBothShapes(t *testing.T) {
	for shape, run := range shapes {
		t.Run(shape, func(t *testing.T) {
			callID := map[string]string{"free-form": "n3", "graph": "n2"}[shape]
			var first, again, outsider, second updateResult
			var between signals.Status
			h, err := run(t, 2, func(h *harness) {
				h.approve(time.Minute, signedApproval(t, ana, "ana", callID, signals.DecisionApprove), &first)
				h.approve(2*time.Minute, signedApproval(t, ana, "ana", callID, signals.DecisionApprove), &again)
				h.approve(3*time.Minute, signedApproval(t, carol, "carol", callID, signals.DecisionApprove), &outsider)
				h.env.RegisterDelayedCallback(func() { between = h.status() }, 4*time.Minute)
				h.approve(5*time.Minute, signedApproval(t, bob, "bob", callID, signals.DecisionApprove), &second)
			})
			require.NoError(t, err)
			require.NoError(t, first.rejected)
			require.Equal(t, signals.ApproveResult{CallID: callID, Decision: "approve", Approved: 1, Needed: 2}, first.result)
			require.ErrorContains(t, again.rejected, "ana already approved call "+callID)
			require.ErrorContains(t, outsider.rejected, "carol is not in finance, who answer for b")
			require.Len(t, between.PendingApprovals, 1, "one of two approvals: the call still waits")
			require.Equal(t, []string{"finance"}, between.PendingApprovals[0].Answering, "finance answers first")
			require.Equal(t, []string{"ana"}, between.PendingApprovals[0].ApprovedBy, "ana approved already")
			require.NoError(t, second.rejected)
			require.Equal(t, 1, strings.Count(strings.Join(toolsCalled(h), ","), "b"), "b ran once, after the second person")
			require.Equal(t, []string{"ana", "bob"}, approvalsBy(h))
		})
	}
}

func TestUnsignedAndForgedApprovalsAreRefusedInBothShapes(t *testing.T) {
	for shape, run := range shapes {
		t.Run(shape, func(t *testing.T) {
			callID := map[string]string{"free-form": "n3", "graph": "n2"}[shape]
			forged := signedApproval(t, carol, "ana", callID, signals.DecisionApprove) // carol's key, ana's name
			var plain, forgedUpdate updateResult
			h, _ := run(t, 1, func(h *harness) {
				h.approve(time.Minute, signals.ApproveRequest{CallID: callID, Decision: "approve", Audit: signals.Audit{By: "ana"}}, &plain)
				h.approve(2*time.Minute, forged, &forgedUpdate)
				h.signal(3*time.Minute, signals.Approve, signals.ApproveRequest{CallID: callID, Decision: "approve", Audit: signals.Audit{By: "ana"}})
				h.signal(4*time.Minute, signals.Approve, forged)
			})
			require.ErrorContains(t, plain.rejected, `b answers only to people of finance: the approval must carry a "signature"`)
			require.ErrorContains(t, forgedUpdate.rejected, "the signature does not match this approval")
			ignored := ignoredSignals(h)
			require.Len(t, ignored, 2, "the signals are recorded and ignored")
			require.Contains(t, ignored[0], `must carry a "signature"`)
			require.Contains(t, ignored[1], "does not match")
			require.NotContains(t, toolsCalled(h), "b", "nothing settled b: it timed out")
			require.Empty(t, approvalsBy(h)[0], "the timeout's node names nobody")
		})
	}
}

// A tool that names nobody keeps today's behaviour: no signature, by is
// free text.
func TestAToolNamingNobodyTakesAPlainApproval(t *testing.T) {
	var got updateResult
	h, _, err := approvalRun(t, func(h *harness) {
		h.approve(time.Minute, signals.ApproveRequest{CallID: "n3", Decision: "approve", Audit: signals.Audit{By: "whoever"}}, &got)
	})
	require.NoError(t, err)
	require.NoError(t, got.rejected)
	require.Equal(t, signals.ApproveResult{CallID: "n3", Decision: "approve"}, got.result)
	require.Equal(t, []string{""}, approvalsBy(h), "by stays in the node's args, not as a signed person")
}

// An approval short of a two-person rule is carried when the run
// continues as new while the call waits: the next generation needs only
// the second person, and still refuses the first again.
func TestAnApprovalShortOfTheRuleIsCarried(t *testing.T) {
	var first updateResult
	h := newHarness(t, peopleSpec(2), waitingReplies(), echoTool)
	h.approve(30*time.Second, signedApproval(t, ana, "ana", "n3", signals.DecisionApprove), &first)
	h.suggestWhileWaiting()
	_, _ = h.run(AgentInput{Agent: "agent", Task: "book"})
	require.NoError(t, first.rejected)
	next := continuedInput(t, h)
	carried := next.Continued.Resume.Waiting.Approved["n3"]
	require.Len(t, carried, 1)
	require.Equal(t, "ana", carried[0].By)

	var again, second updateResult
	h2 := newHarness(t, peopleSpec(2), waitingReplies()[1:], echoTool)
	h2.approve(time.Minute, signedApproval(t, ana, "ana", "n3", signals.DecisionApprove), &again)
	h2.approve(2*time.Minute, signedApproval(t, bob, "bob", "n3", signals.DecisionApprove), &second)
	res, err := h2.run(next)
	require.NoError(t, err)
	require.Equal(t, "completed", string(res.Status))
	require.ErrorContains(t, again.rejected, "ana already approved call n3")
	require.NoError(t, second.rejected)
	require.Equal(t, []string{"b"}, toolNamesOf(h2.toolReqs))
	require.Equal(t, []string{"ana", "bob"}, approvalsBy(h2))
}

// An edit that interrupts a call's wait while it has approvals short of
// its approvers: N keeps them on record: each is an approval node naming
// its person, as a decision's would be.
func TestAnEditKeepsTheApprovalsItInterruptedOnRecord(t *testing.T) {
	var partial, edited updateResult
	h, _ := peopleFreeForm(t, 2, func(h *harness) {
		h.approve(time.Minute, signedApproval(t, ana, "ana", "n3", signals.DecisionApprove), &partial)
		h.edit(2*time.Minute, signals.EditRequest{NodeID: "n4", Output: json.RawMessage(`{"q": 2}`), Audit: signals.Audit{By: "bob"}}, &edited)
	})
	require.NoError(t, partial.rejected)
	require.NoError(t, edited.rejected)
	require.Equal(t, []string{"ana"}, approvalsBy(h), "ana's approval is recorded, not dropped")
}
