package runmsg

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/signals"
)

// Sign signs approval req of run workflowID (runID "": its latest) as
// signer with key: the signature binds the run's chain (its first run
// id, from describe) and the tool the call waits for (from the status
// query), so it settles this call of this run and no other. What known
// already holds (a listing's tool, chain) is not asked again. The CLI's
// approve --as and the console (as config.ConsoleSigner) sign with it.
func Sign(ctx context.Context, tc client.Client, workflowID, runID string, known Known, key ed25519.PrivateKey, signer string, req *signals.ApproveRequest) error {
	ctx, cancel := context.WithTimeout(ctx, UpdateTimeout)
	defer cancel()
	chain, tool := known.Chain, known.Tool
	if chain == "" || tool == "" {
		var err error
		if chain, tool, err = waitingFor(ctx, tc, workflowID, runID, req.CallID); err != nil {
			return err
		}
	}
	if tool == "" {
		return fmt.Errorf("approve: call %s of %s is not waiting for approval (status lists pending_approvals)", req.CallID, workflowID)
	}
	s, err := sign.Sign(key, sign.For(chain, workflowID, tool, *req), signer, time.Now())
	if err != nil {
		return err
	}
	req.Signature = s
	return nil
}

// Known is what a signature binds that the caller knows already, as the
// inbox's listing does: the run's chain (its first run id) and the tool
// the call waits for. With both, Sign asks the server nothing.
type Known struct{ Chain, Tool string }

// waitingFor reads the chain of run workflowID (describe) and the tool
// its call callID waits for (the status query).
func waitingFor(ctx context.Context, tc client.Client, workflowID, runID, callID string) (chain, tool string, err error) {
	chain, st, err := chainAndStatus(ctx, tc, workflowID, runID, "approve")
	if err != nil {
		return "", "", err
	}
	for _, p := range st.PendingApprovals {
		if p.CallID == callID {
			tool = p.Tool
		}
	}
	return chain, tool, nil
}

// SignReply signs reply req to run workflowID (runID "": its latest) as
// signer with key: the signature binds the run's chain and the human node
// waiting (from the status query), so it answers this wait of this run
// and no other. unstuck reply --as and the console sign with it.
func SignReply(ctx context.Context, tc client.Client, workflowID, runID string, key ed25519.PrivateKey, signer string, req *signals.ReplyRequest) error {
	ctx, cancel := context.WithTimeout(ctx, UpdateTimeout)
	defer cancel()
	chain, st, err := chainAndStatus(ctx, tc, workflowID, runID, "reply")
	if err != nil {
		return err
	}
	if st.PendingReply == nil {
		return fmt.Errorf("reply: %s waits for no reply (the run is %s)", workflowID, st.Phase)
	}
	s, err := sign.SignReply(key, sign.ForReply(chain, workflowID, st.PendingReply.NodeID, *req), signer, time.Now())
	if err != nil {
		return err
	}
	req.Signature = s
	return nil
}

// chainAndStatus describes run workflowID (runID "": its latest) for the
// chain a signature binds (its first run id) and reads that run's status;
// verb names the message in errors.
func chainAndStatus(ctx context.Context, tc client.Client, workflowID, runID, verb string) (string, signals.Status, error) {
	desc, err := tc.DescribeWorkflowExecution(ctx, workflowID, runID)
	if err != nil {
		return "", signals.Status{}, fmt.Errorf("%s: describe %s: %w", verb, workflowID, err)
	}
	info := desc.GetWorkflowExecutionInfo()
	chain := info.GetFirstRunId()
	if chain == "" {
		return "", signals.Status{}, fmt.Errorf("%s: the server does not report the first run id of %s, which a signature binds", verb, workflowID)
	}
	// The run described, not a later one that may start meanwhile.
	st, err := Status(ctx, tc, workflowID, info.GetExecution().GetRunId())
	if err != nil {
		return "", signals.Status{}, fmt.Errorf("%s: %w", verb, err)
	}
	return chain, st, nil
}
