package main

import (
	"context"
	"os"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
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

// sign signs req as o.as for the run (runmsg.Sign).
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
	return runmsg.Sign(ctx, tc, workflowID, o.runID, key, o.as, req)
}
