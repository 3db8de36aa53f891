package sign

import (
	"encoding/json"
	"fmt"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
)

// Approval is what a signature binds: one decision about one call of one
// run, by one person.
type Approval struct {
	// Chain is the run's first run id (the continue-as-new chain's), so a
	// signature for one run's n5 settles no other run's n5 under a reused
	// workflow id; Workflow the workflow id.
	Chain, Workflow string
	// CallID is the waiting call, Tool the tool it waits for (the call's,
	// or a fallback standing in).
	CallID, Tool string
	Decision     string
	// Args are modify's arguments, Call replace's call (canonical JSON in
	// the message, so key order and spacing do not matter).
	Args json.RawMessage
	Call *signals.ReplacementCall
	// By is who approves: the signer itself, or whoever the console
	// authenticated when the console signs.
	By string
}

// For is the Approval req asks for, in the run chain/workflow, of a call
// waiting for tool.
func For(chain, workflow, tool string, req signals.ApproveRequest) Approval {
	return Approval{Chain: chain, Workflow: workflow, CallID: req.CallID, Tool: tool,
		Decision: req.Decision, Args: req.Args, Call: req.Call, By: req.By}
}

// version starts every message and every signature of this format.
const version = "v1"

// Message is the bytes signed: a JSON array of strings, so no field can
// run into the next, with the signer's key name and the signing time
// (unix seconds).
func Message(a Approval, signer string, at int64) ([]byte, error) {
	args, err := canonical(a.Args)
	if err != nil {
		return nil, fmt.Errorf("args: %w", err)
	}
	var callTool, callArgs string
	if a.Call != nil {
		callTool = a.Call.Tool
		if callArgs, err = canonical(a.Call.Args); err != nil {
			return nil, fmt.Errorf("call.args: %w", err)
		}
	}
	return json.Marshal([]string{"unstuck-approval", version, a.Chain, a.Workflow, a.CallID, a.Tool,
		a.Decision, args, callTool, callArgs, a.By, signer, fmt.Sprint(at)})
}

func canonical(doc json.RawMessage) (string, error) {
	if len(doc) == 0 {
		return "", nil
	}
	b, err := policies.CanonicalJSON(doc)
	return string(b), err
}
