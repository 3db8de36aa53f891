package signals

import "fmt"

// The audit's bounds. What a message carries is kept in the trace (a
// conversation's message waits in the carried inbox, then becomes a node),
// so who and why are held to a name and a few sentences: without a bound,
// "by" could take nearly all of a message's payload, far past its text.
const (
	// MaxBy bounds "by": who sent the message, a name or an address.
	MaxBy = 256
	// MaxReason bounds "reason": why, in a few sentences.
	MaxReason = 4 << 10
)

// CheckAudit refuses a message whose "by" or "reason" is over its bound;
// name is the message's (reply, message, approve, edit, handoff, budget).
func CheckAudit(name string, a Audit) error {
	switch {
	case len(a.By) > MaxBy:
		return fmt.Errorf(`%s: "by" is %d bytes, over the %d bytes it may hold (who sent it: a name or an address)`, name, len(a.By), MaxBy)
	case len(a.Reason) > MaxReason:
		return fmt.Errorf(`%s: "reason" is %d bytes, over the %d KiB it may hold (why, in a few sentences)`, name, len(a.Reason), MaxReason>>10)
	}
	return nil
}

// AuditOf is the audit a message carries (every message embeds it).
func (a Audit) AuditOf() Audit { return a }
