package console

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/signals"
)

// A checked call (docs/verify.md) shows its verdict beside it: the graph
// marks the call "unverified", "verified" or "outcome_unknown" (its
// read-back could not read) and labels a read-back as the
// read-back of its call, and the checks section under the graph says for
// each checked call what it was held to, the values it read and why it
// failed. Every value comes from a tool: the template escapes it.

// valueWidth bounds a value a check read, or a read-back's answer, on
// the page.
const valueWidth = 300

// checkView is one checked call's verdict as the run page shows it.
type checkView struct {
	Call      signals.Node
	Kind      string
	Condition string // the expression or read-back expect; "result_schema" for a schema
	Passed    bool
	Unknown   bool // the read-back could not read
	Reason    string
	Seen      []seenView
	// ReadBack is the read-back call, when the check made one.
	ReadBack *readBackView
}

type seenView struct{ Path, Value string }

// readBackView is what a read-back call asked and answered.
type readBackView struct {
	ID, Tool, Args, Answer, Error string
}

// checksOf are the trace's checked calls, in trace order.
func checksOf(tr signals.Trace) []checkView {
	byID := map[string]signals.Node{}
	for _, n := range tr.Nodes {
		byID[n.ID] = n
	}
	var out []checkView
	for _, n := range tr.Nodes {
		if n.Check != nil {
			out = append(out, checkOf(n, byID))
		}
	}
	return out
}

// checkOf is call n's verdict (n.Check set); byID finds its read-back.
func checkOf(n signals.Node, byID map[string]signals.Node) checkView {
	ck := n.Check
	v := checkView{Call: n, Kind: ck.Kind, Condition: ck.Condition, Passed: ck.Passed, Unknown: ck.Unknown, Reason: ck.Reason}
	if v.Condition == "" && ck.Kind == signals.CheckResultSchema {
		v.Condition = signals.CheckResultSchema
	}
	for _, s := range ck.Seen {
		v.Seen = append(v.Seen, seenView{Path: s.Path, Value: clip(compactJSON(s.Value), valueWidth)})
	}
	if rb, ok := byID[ck.ReadBack]; ok {
		v.ReadBack = &readBackView{ID: rb.ID, Tool: rb.Tool, Args: clip(compactJSON(rb.Args), valueWidth),
			Answer: clip(answered(rb.Output), valueWidth), Error: clip(rb.Error, valueWidth)}
	}
	return v
}

// What names what the call was held to: "verify", "result_schema", or a
// read-back's "read-back expect".
func (v checkView) What() string {
	if v.Kind == signals.CheckReadBack {
		return "read-back expect"
	}
	return v.Kind
}

// Verdict is the check's word: "verified", "unverified" or
// "outcome_unknown" (signals.Check.Verdict).
func (v checkView) Verdict() string {
	return signals.Check{Passed: v.Passed, Unknown: v.Unknown}.Verdict()
}

// checkMark is the mark a checked call carries in the graph; "" for a
// node with no check.
func checkMark(ck *signals.Check) string {
	switch {
	case ck == nil:
		return ""
	case ck.Passed:
		return "✓ verified"
	case ck.Unknown:
		return "? outcome unknown"
	}
	return "✗ unverified"
}

// answered is a read-back's output, "" when it has none.
func answered(raw json.RawMessage) string {
	if string(raw) == "null" {
		return ""
	}
	return compactJSON(raw)
}
