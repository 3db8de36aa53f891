package sign

import (
	"crypto/ed25519"
	"fmt"
	"slices"
	"strings"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// Ask is what a call whose tool names approvers (approval.by) accepts.
type Ask struct {
	// People are the run's groups and keys (config.Resolved.People).
	People *config.People
	// Groups are the groups whose members may answer now.
	Groups []string
	// Needed is how many distinct people must approve; Approved are those
	// who did already.
	Needed   int
	Approved []string
}

// Check says why approval a, carrying signature, cannot settle the call
// (an error naming what failed), or answers the signature. It checks the
// signature before who signed, so a forged approval is refused as forged
// whatever it claims.
func (k Ask) Check(a Approval, signature string) (Signature, error) {
	groups := strings.Join(k.Groups, ", ")
	if signature == "" {
		return Signature{}, fmt.Errorf(`approve: %s answers only to people of %s: the approval must carry a "signature" (unstuck approve --as NAME --key FILE signs it; a plain Temporal update or signal cannot)`, a.Tool, groups)
	}
	s, err := Parse(signature)
	if err != nil {
		return Signature{}, fmt.Errorf(`approve: "signature" is malformed: %v`, err)
	}
	key, ok := k.People.Key(s.Signer)
	switch {
	case !ok && s.Signer != config.ConsoleSigner && !slices.Contains(k.People.Members(k.Groups), s.Signer):
		// A run carries only the keys of the people who may answer it.
		return Signature{}, fmt.Errorf("approve: %s is not in %s, who answer for %s", s.Signer, groups, a.Tool)
	case !ok:
		return Signature{}, fmt.Errorf("approve: signer %q has no key in the run's people.keys", s.Signer)
	}
	switch {
	case a.By == "":
		return Signature{}, fmt.Errorf(`approve: "by" is empty: a signed approval names who approves`)
	case s.Signer != config.ConsoleSigner && s.Signer != a.By:
		return Signature{}, fmt.Errorf(`approve: signed with %s's key, but "by" is %s: a person's key signs only their own approvals`, s.Signer, a.By)
	}
	msg, err := Message(a, s.Signer, s.At)
	if err != nil {
		return Signature{}, fmt.Errorf("approve: %v", err)
	}
	if !ed25519.Verify(key, msg, s.Sig) {
		return Signature{}, fmt.Errorf("approve: the signature does not match this approval: it was made for another run, call, tool, decision, arguments or person, or not with %s's key", s.Signer)
	}
	if !slices.Contains(k.People.Members(k.Groups), a.By) {
		return Signature{}, fmt.Errorf("approve: %s is not in %s, who answer for %s", a.By, groups, a.Tool)
	}
	if k.Needed > 1 {
		switch {
		case a.Decision == signals.DecisionModify || a.Decision == signals.DecisionReplace:
			return Signature{}, fmt.Errorf("approve: %s is refused under approvers: %d (each person approves the same call; reject it instead)", a.Decision, k.Needed)
		case a.Decision == signals.DecisionApprove && slices.Contains(k.Approved, a.By):
			return Signature{}, fmt.Errorf("approve: %s already approved call %s; approvers: %d needs %d distinct people", a.By, a.CallID, k.Needed, k.Needed)
		}
	}
	return s, nil
}

// Answering are the groups whose members may answer a call of a tool
// naming groups (approval.by, in escalation order) after escalated
// escalations: the first group, and each group escalated to after it (a
// group asked before may still answer).
func Answering(groups []string, escalated int) []string {
	return groups[:min(escalated+1, len(groups))]
}
