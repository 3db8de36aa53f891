package main

import (
	"context"
	"crypto/ed25519"
	"os"

	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
)

// approverKeyEnv names the private key file of --as when --key is not
// given.
const approverKeyEnv = "UNSTUCK_APPROVER_KEY"

// signerFlags are --as and --key: who signs an answer (an approval, a
// reply) and the private key file that signs for them.
type signerFlags struct{ as, key string }

// add registers the flags; what is what they sign.
func (s *signerFlags) add(f *pflag.FlagSet, what string) {
	f.StringVar(&s.as, "as", "", "sign the "+what+" as this person (people.groups), for one whose approval names by:")
	f.StringVar(&s.key, "key", "", "the private key file that signs for --as (default: $"+approverKeyEnv+")")
}

// signedBy checks the flags before anything is dialled: --as names who
// answers (it is the answer's by, which --by may not contradict) and
// needs a key file. It answers --as ("" unsigned).
func (s *signerFlags) signedBy(by, what string) (string, error) {
	switch {
	case s.as == "" && s.key != "":
		return "", usageErrorf("--key needs --as: the person the key signs for")
	case s.as == "":
		return "", nil
	case s.key == "":
		s.key = os.Getenv(approverKeyEnv)
	}
	switch {
	case s.key == "":
		return "", usageErrorf("--as needs --key FILE or %s=FILE: the private key that signs for %s", approverKeyEnv, s.as)
	case by != "" && by != s.as:
		return "", usageErrorf("--by %s and --as %s differ: a signed %s is by the person who signs it", by, s.as, what)
	}
	if err := sign.ValidSigner(s.as); err != nil {
		return "", usageErrorf("--as: %v", err)
	}
	return s.as, nil
}

// signing checks the signing flags of an approval, whose by --as is.
func (o *approveOptions) signing(req *signals.ApproveRequest) error {
	as, err := o.signedBy(o.by, "approval")
	if as != "" {
		req.By = as
	}
	return err
}

// approver is who signs approvals (--as) with their private key; nil
// signs nothing.
type approver struct {
	as  string
	key ed25519.PrivateKey
}

// signer reads --as's key, once for every answer it signs (nil without
// --as).
func (s signerFlags) signer() (*approver, error) {
	if s.as == "" {
		return nil, nil
	}
	key, err := readApproverKey(s.key)
	if err != nil {
		return nil, err
	}
	return &approver{as: s.as, key: key}, nil
}

// sign signs req for its run as a (runmsg.Sign); a nil approver leaves it
// as it is.
func (a *approver) sign(ctx context.Context, tc client.Client, workflowID, runID string, known runmsg.Known, req *signals.ApproveRequest) error {
	if a == nil {
		return nil
	}
	return runmsg.Sign(ctx, tc, workflowID, runID, known, a.key, a.as, req)
}
