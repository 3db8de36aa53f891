package handoff

import (
	"fmt"

	"github.com/unstuck-dev/unstuck/signals"
)

// Handoff triggers, as the handoff node records them.
const (
	TriggerTool    = "tool"
	TriggerMessage = "message"
	TriggerLadder  = "ladder"
	TriggerRule    = "rule"
	TriggerReturn  = "return"
)

// Ask is a handoff as its trigger asks for it (the handoff node's
// arguments).
type Ask struct {
	Trigger   string `json:"trigger"`
	To        string `json:"to,omitempty"`
	Reason    string `json:"reason"`
	Summary   string `json:"summary,omitempty"`
	Suggested string `json:"suggested_next_action,omitempty"`
	// Audit is a person's who and why (their reason is not the handoff's).
	signals.Audit `json:"audit,omitempty"`
	// Parents of the handoff node (default: the frontier).
	Parents []string `json:"-"`
}

// String names a handoff ask in logs.
func (a Ask) String() string {
	return fmt.Sprintf("handoff(%s to %q, %s)", a.Trigger, a.To, a.Reason)
}
