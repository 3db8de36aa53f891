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
	s, err := k.verify(answer{verb: "approve", noun: "approval", of: a.Tool, by: a.By, binds: "call, tool, decision, arguments",
		message: func(signer string, at int64) ([]byte, error) { return Message(a, signer, at) }}, signature)
	if err != nil {
		return Signature{}, err
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

// CheckReply is Check for reply r to a human node whose approval names
// who may answer.
func (k Ask) CheckReply(r Reply, signature string) (Signature, error) {
	return k.verify(answer{verb: "reply", noun: "reply", of: "human node " + r.Node, by: r.By, binds: "human node, text, output",
		message: func(signer string, at int64) ([]byte, error) { return ReplyMessage(r, signer, at) }}, signature)
}

// answer is what Check and CheckReply verify alike: the message's verb
// and noun (for what it says), what it answers, who it says answers, and
// the message a signer signed.
type answer struct {
	// binds lists what its signature binds besides the run and the person.
	verb, noun, of, by, binds string
	message                   func(signer string, at int64) ([]byte, error)
}

// verify checks an answer's signature, then that its person may answer.
func (k Ask) verify(a answer, signature string) (Signature, error) {
	groups := strings.Join(k.Groups, ", ")
	if signature == "" {
		return Signature{}, fmt.Errorf(`%s: %s answers only to people of %s: the %s must carry a "signature" (unstuck %s --as NAME --key FILE signs it; a plain Temporal update or signal cannot)`, a.verb, a.of, groups, a.noun, a.verb)
	}
	s, err := Parse(signature)
	if err != nil {
		return Signature{}, fmt.Errorf(`%s: "signature" is malformed: %v`, a.verb, err)
	}
	key, ok := k.People.Key(s.Signer)
	switch {
	case !ok && s.Signer != config.ConsoleSigner && !slices.Contains(k.People.Members(k.Groups), s.Signer):
		return Signature{}, fmt.Errorf("%s: %s is not in %s, who answer for %s", a.verb, s.Signer, groups, a.of)
	case !ok:
		return Signature{}, fmt.Errorf("%s: signer %q has no key in the run's people.keys", a.verb, s.Signer)
	}
	switch {
	case a.by == "":
		return Signature{}, fmt.Errorf(`%s: "by" is empty: a signed %s names who answers`, a.verb, a.noun)
	case s.Signer != config.ConsoleSigner && s.Signer != a.by:
		return Signature{}, fmt.Errorf(`%s: signed with %s's key, but "by" is %s: a person's key signs only their own answers`, a.verb, s.Signer, a.by)
	}
	msg, err := a.message(s.Signer, s.At)
	if err != nil {
		return Signature{}, fmt.Errorf("%s: %v", a.verb, err)
	}
	if !ed25519.Verify(key, msg, s.Sig) {
		return Signature{}, fmt.Errorf("%s: the signature does not match this %s: it was made for another run, %s or person, or not with %s's key", a.verb, a.noun, a.binds, s.Signer)
	}
	if !slices.Contains(k.People.Members(k.Groups), a.by) {
		return Signature{}, fmt.Errorf("%s: %s is not in %s, who answer for %s", a.verb, a.by, groups, a.of)
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
