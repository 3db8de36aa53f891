package ledger

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// TriedWrite is the invalidated call that tried this exact write and did
// not see it through, in a way that leaves open whether the tool acted (a
// timeout, a transient or unknown failure, a cancellation), if any. A
// definite refusal is not taken: a tool that keeps answers by key would
// only give it again.
func (l *Ledger) TriedWrite(tool string, args json.RawMessage) *trace.Node {
	return l.invalidatedWrite(tool, args, func(n *trace.Node) bool {
		return n.Ran && !n.Executed && outcomeUnknown(n.Class)
	})
}

// Ran records that call n's tool activity was started, its
// Idempotency-Key made of the call id key.
func Ran(n *trace.Node, key string) { n.Ran, n.CallKey = true, key }

// KeyOf is the call id a try of a write made its Idempotency-Key of.
func KeyOf(tried *trace.Node) string {
	if tried.CallKey != "" {
		return tried.CallKey // itself an earlier try's key, maybe
	}
	return tried.ID
}

// outcomeUnknown: a call that failed so may still have acted.
func outcomeUnknown(c policies.Class) bool {
	switch c {
	case policies.Timeout, policies.Transient, policies.Unclassified, policies.Canceled, policies.Unverified, policies.OutcomeUnknown, "":
		return true
	}
	return false
}
