package policies

import (
	"fmt"

	"github.com/unstuck-dev/unstuck/config"
)

// ApprovalDecision is whether a call waits for a person, and what its
// trace node notes of the decision ("" when there is nothing to say).
type ApprovalDecision struct {
	Ask  bool
	Note string
}

// ApprovalAsks decides whether a call of a tool whose approval is a
// waits for a person: always does, never does not, and a condition
// (approval: {when}) asks when it held (held) or could not be evaluated
// (err: a missing field, a type error, its cost bound), the safe side.
// A condition's note says what was checked and how it came out.
func ApprovalAsks(a config.Approval, held bool, err error) ApprovalDecision {
	switch {
	case !a.Conditional():
		return ApprovalDecision{Ask: a.Always()}
	case err != nil:
		return ApprovalDecision{Ask: true, Note: fmt.Sprintf("approval asked: %s could not be evaluated (%v), so a person decides", a.When, err)}
	case held:
		return ApprovalDecision{Ask: true, Note: fmt.Sprintf("approval asked: %s is true", a.When)}
	}
	return ApprovalDecision{Note: fmt.Sprintf("approval not asked: %s is false", a.When)}
}
