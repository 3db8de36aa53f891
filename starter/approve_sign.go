package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/signals"
)

// approverKeyEnv names the private key file of --as when --key is not
// given.
const approverKeyEnv = "UNSTUCK_APPROVER_KEY"

// signing checks the signing flags before anything is dialled: --as names
// who decides (it is the approval's by) and needs a key file.
func (o *approveOptions) signing(req *signals.ApproveRequest) error {
	switch {
	case o.as == "" && o.key != "":
		return usageErrorf("--key needs --as: the person the key signs for")
	case o.as == "":
		return nil
	case o.key == "":
		o.key = os.Getenv(approverKeyEnv)
	}
	switch {
	case o.key == "":
		return usageErrorf("--as needs --key FILE or %s=FILE: the private key that signs for %s", approverKeyEnv, o.as)
	case o.by != "" && o.by != o.as:
		return usageErrorf("--by %s and --as %s differ: a signed approval is by the person who signs it", o.by, o.as)
	}
	if err := sign.ValidSigner(o.as); err != nil {
		return usageErrorf("--as: %v", err)
	}
	req.By = o.as
	return nil
}

// sign signs req as o.as for the run: its chain (first run id) from
// describe, and the tool the call waits for from the status query.
func (c *cli) sign(ctx context.Context, workflowID string, o approveOptions, req *signals.ApproveRequest) error {
	key, err := readApproverKey(o.key)
	if err != nil {
		return err
	}
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	desc, err := tc.DescribeWorkflowExecution(ctx, workflowID, o.runID)
	if err != nil {
		return fmt.Errorf("approve: describe %s: %w", workflowID, err)
	}
	info := desc.GetWorkflowExecutionInfo()
	chain := info.GetFirstRunId()
	if chain == "" {
		return fmt.Errorf("approve: the server does not report the first run id of %s, which a signature binds", workflowID)
	}
	var st signals.Status
	// The run described, not a later one that may start meanwhile.
	if err := c.queryWith(ctx, tc, workflowID, info.GetExecution().GetRunId(), signals.QueryStatus, &st); err != nil {
		return err
	}
	tool := ""
	for _, p := range st.PendingApprovals {
		if p.CallID == req.CallID {
			tool = p.Tool
		}
	}
	if tool == "" {
		return fmt.Errorf("approve: call %s of %s is not waiting for approval (status lists pending_approvals)", req.CallID, workflowID)
	}
	s, err := sign.Sign(key, sign.For(chain, workflowID, tool, *req), o.as, time.Now())
	if err != nil {
		return err
	}
	req.Signature = s
	return nil
}
