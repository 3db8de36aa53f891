package main

import (
	"context"
	"crypto/ed25519"
	"os"

	"go.temporal.io/sdk/client"

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

// approver is who signs approvals (--as) with their private key; nil
// signs nothing.
type approver struct {
	as  string
	key ed25519.PrivateKey
}

// signer reads --as's key, once for every call it signs (nil without --as).
func (o approveOptions) signer() (*approver, error) {
	if o.as == "" {
		return nil, nil
	}
	key, err := readApproverKey(o.key)
	if err != nil {
		return nil, err
	}
	return &approver{as: o.as, key: key}, nil
}

// sign signs req for its run as a (runmsg.Sign); a nil approver leaves it
// as it is.
func (a *approver) sign(ctx context.Context, tc client.Client, workflowID, runID string, req *signals.ApproveRequest) error {
	if a == nil {
		return nil
	}
	return runmsg.Sign(ctx, tc, workflowID, runID, a.key, a.as, req)
}
