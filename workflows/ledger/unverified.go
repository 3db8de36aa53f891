package ledger

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// UnverifiedWrite is the latest try of this exact write, if it failed its
// check (the pipeline's check stage, workflows/call_stages.go): the tool answered, but whether it
// acted is not known. Only the latest try counts: after one that passed,
// the same write again is a new write.
func (l *Ledger) UnverifiedWrite(tool string, args json.RawMessage) *trace.Node {
	last := l.SameWrite(tool, args, 0, l.host.Len(), func(n *trace.Node) bool { return n.Ran && n.CheckOf == "" })
	if last == nil || last.Check == nil || last.Check.Passed {
		return nil
	}
	return last
}
