package ledger

import (
	"bytes"
	"encoding/json"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// Ledger is the effect ledger of a run: a view of its trace, made for
// each use, so it always reads the trace as it is now.
type Ledger struct{ host Host }

// New is the effect ledger of the run host.
func New(host Host) *Ledger { return &Ledger{host: host} }

// SameWrite is the latest call of tool with these canonical arguments
// among the trace's nodes from up to (not including) to that want says.
// A call is matched by the tool it asked for, not a fallback that served
// it.
func (l *Ledger) SameWrite(tool string, args json.RawMessage, from, to int, want func(*trace.Node) bool) *trace.Node {
	canon, err := policies.CanonicalJSON(args)
	if err != nil {
		return nil
	}
	for i := to - 1; i >= from; i-- {
		n := l.host.At(i)
		if n.Kind != signals.KindCall || !want(n) || n.AskedTool() != tool {
			continue
		}
		if got, err := policies.CanonicalJSON(n.Args); err == nil && bytes.Equal(got, canon) {
			return n
		}
	}
	return nil
}

// invalidatedWrite is the latest invalidated call of tool with these
// canonical arguments that is, as well, what want says.
func (l *Ledger) invalidatedWrite(tool string, args json.RawMessage, want func(*trace.Node) bool) *trace.Node {
	return l.SameWrite(tool, args, 0, l.host.Len(), func(n *trace.Node) bool {
		return n.Status == signals.StatusInvalidated && want(n)
	})
}
