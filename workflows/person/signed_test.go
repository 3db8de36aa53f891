package person

import (
	"crypto/ed25519"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/internal/testutil"
	"github.com/unstuck-dev/unstuck/signals"
)

var personKey = testutil.PersonKey

// payRun is a run whose tool pay answers to finance (ana, bob), two of
// them; ops (carol) may not answer.
func payRun(needed int) *fakeRun {
	f := newFakeRun()
	f.gate = true
	pub := func(seed byte) string { return config.KeyText(personKey(seed).Public().(ed25519.PublicKey)) }
	f.spec.Tools = append(f.spec.Tools, config.Tool{Name: "pay", Approval: config.Approval{
		Mode: "always", People: &config.Approvers{By: []string{"finance", "ops"}, Count: needed}}})
	f.spec.People = &config.People{
		Groups: map[string][]string{"finance": {"ana", "bob"}, "ops": {"carol"}},
		Keys:   map[string]string{"ana": pub(0), "bob": pub(1), "carol": pub(2)},
	}
	f.call("n1", "pay", signals.StatusAwaitingApproval)
	return f
}

// waitingToPay runs check in a workflow where call n1 of payRun(needed)
// waits for approval.
func waitingToPay(t *testing.T, needed int, check func(ctx workflow.Context, f *fakeRun, p *Waits)) {
	f := payRun(needed)
	var s State
	testutil.InWorkflow(t, func(ctx workflow.Context) {
		p := f.waits(&s)
		p.ExpectApproval("n1", "pay")
		check(ctx, f, p)
	})
}

// signedBy is an approval of call n1 of pay by the key of seed, made for
// this run.
func signedBy(ctx workflow.Context, t *testing.T, seed byte, by, decision string) signals.ApproveRequest {
	info := workflow.GetInfo(ctx)
	req := signals.ApproveRequest{CallID: "n1", Decision: decision, Audit: signals.Audit{By: by}}
	s, err := sign.Sign(personKey(seed), sign.For(info.FirstRunID, info.WorkflowExecution.ID, "pay", req), by, time.Unix(1796652000, 0))
	require.NoError(t, err)
	req.Signature = s
	return req
}

// Under a two-person rule the call is decided once two distinct people of
// the first group approved; each approval is recorded naming its person.
func TestATwoPersonRuleWaitsForTheSecondPerson(t *testing.T) {
	waitingToPay(t, 2, func(ctx workflow.Context, f *fakeRun, p *Waits) {

		_, err := p.AcceptApproval(ctx, signals.ApproveRequest{CallID: "n1", Decision: signals.DecisionApprove, Audit: signals.Audit{By: "ana"}})
		require.ErrorContains(t, err, `the approval must carry a "signature"`)

		res, err := p.AcceptApproval(ctx, signedBy(ctx, t, 0, "ana", signals.DecisionApprove))
		require.NoError(t, err)
		require.Equal(t, signals.ApproveResult{CallID: "n1", Decision: signals.DecisionApprove, Approved: 1, Needed: 2}, res)
		require.Nil(t, p.Decision("n1"), "one of two: not decided yet")

		_, err = p.AcceptApproval(ctx, signedBy(ctx, t, 0, "ana", signals.DecisionApprove))
		require.ErrorContains(t, err, "ana already approved call n1")
		_, err = p.AcceptApproval(ctx, signedBy(ctx, t, 2, "carol", signals.DecisionApprove))
		require.ErrorContains(t, err, "carol is not in finance, who answer for pay", "ops answers only once escalated to")

		res, err = p.AcceptApproval(ctx, signedBy(ctx, t, 1, "bob", signals.DecisionApprove))
		require.NoError(t, err)
		require.Equal(t, 2, res.Approved)
		require.NotNil(t, p.Decision("n1"))

		o, err := p.AwaitApproval(ctx, "n1", "pay")
		require.NoError(t, err)
		require.Len(t, o.Earlier, 1)
		pay, _ := f.spec.Tool("pay")
		_, _, problem := p.Decide(ctx, "n1", pay, []byte(`{}`), o)
		assert.Empty(t, problem)
		require.Len(t, f.added, 2)
		assert.Equal(t, "ana", f.added[0].By)
		assert.JSONEq(t, `{"decision": "approve", "approved": 1, "needed": 2}`, string(f.added[0].Output))
		assert.Equal(t, "bob", f.added[1].By)
		assert.Contains(t, f.gates, GatePeople)
		assert.Equal(t, int64(2), f.counts[fmt.Sprint(MetricApprovals, []string{"decision", "approve"})], "each person's approval is counted")
	})
}

// A reject by any one of them rejects; an approval carried across
// continue-as-new still counts.
func TestATwoPersonRuleRejectsOnOneReject(t *testing.T) {
	waitingToPay(t, 2, func(ctx workflow.Context, f *fakeRun, p *Waits) {
		first := signedBy(ctx, t, 0, "ana", signals.DecisionApprove)
		p.KeepApproved("n1", []*signals.ApproveRequest{&first}) // carried from the generation before

		_, err := p.AcceptApproval(ctx, signedBy(ctx, t, 0, "ana", signals.DecisionApprove))
		require.ErrorContains(t, err, "ana already approved", "the carried approval counts")
		res, err := p.AcceptApproval(ctx, signedBy(ctx, t, 1, "bob", signals.DecisionReject))
		require.NoError(t, err)
		require.Equal(t, 1, res.Approved)

		o, err := p.AwaitApproval(ctx, "n1", "pay")
		require.NoError(t, err)
		pay, _ := f.spec.Tool("pay")
		_, args, problem := p.Decide(ctx, "n1", pay, []byte(`{}`), o)
		assert.Nil(t, args)
		assert.Equal(t, "rejected by bob", problem)
	})
}

// A signature made for another run of the same workflow id (another
// chain) settles nothing here.
func TestASignatureForAnotherRunIsRefused(t *testing.T) {
	waitingToPay(t, 1, func(ctx workflow.Context, f *fakeRun, p *Waits) {
		info := workflow.GetInfo(ctx)
		req := signals.ApproveRequest{CallID: "n1", Decision: signals.DecisionApprove, Audit: signals.Audit{By: "ana"}}
		other, err := sign.Sign(personKey(0), sign.For("another-first-run", info.WorkflowExecution.ID, "pay", req), "ana", time.Unix(1796652000, 0))
		require.NoError(t, err)
		req.Signature = other
		require.ErrorContains(t, p.ApproveWanted(ctx, req), "the signature does not match this approval")
		assert.Empty(t, f.gates, "nothing accepted, nothing gated")
	})
}
