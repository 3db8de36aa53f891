package edit

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/signals"
)

// renoteReply changes the note a human rung's escalation kept of a reply
// (workflows/escalation.go) to the edited reply, so the model does not
// read both.
func (e *Edits) renoteReply(before, after json.RawMessage) {
	var was, now signals.ReplyRequest
	// after is editedHumanReply's own encoding: it decodes. before is the
	// reply the edit replaces: one that does not decode noted nothing, so
	// there is no note to change (and the edit drops it).
	_ = json.Unmarshal(before, &was)
	_ = json.Unmarshal(after, &now)
	old := e.host.JSON("a person replied: " + was.Text)
	for i := range e.tr.Nodes {
		n := &e.tr.Nodes[i]
		if n.Kind == signals.KindEscalation && string(n.Output) == string(old) {
			n.Output = e.host.JSON("a person replied: " + now.Text)
		}
	}
}
