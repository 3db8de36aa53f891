package workflows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/policies"
)

// The Temporal Web UI shows each activity and timer by its summary (user
// metadata on the command). The summary is not part of how a command is
// matched on replay, so setting or changing one needs no GetVersion; the
// replay test over testsuite/histories holds that.

// argsSummaryLimit is how much of a call's arguments a summary shows.
const argsSummaryLimit = 80

// withSummary is o with the Web UI summary s.
func withSummary(o workflow.ActivityOptions, s string) workflow.ActivityOptions {
	o.Summary = s
	return o
}

// toolSummary is how a tool call reads in the Web UI: `search(q=AAPL)`.
func toolSummary(tool string, args json.RawMessage) string {
	return tool + "(" + policies.ClipText(argsText(args), argsSummaryLimit) + ")"
}

// modelSummary is how a model request reads in the Web UI.
func modelSummary(step int) string { return fmt.Sprintf("model: step %d", step) }

// argsText renders a JSON object's members as `k=v, k2=v2` in the order
// written (a string value bare, others as compact JSON); anything else is
// its compact JSON.
func argsText(args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return compactText(args)
	}
	var parts []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return compactText(args)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return compactText(args)
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = compactText(raw)
		}
		parts = append(parts, key+"="+oneLineText(s))
	}
	return strings.Join(parts, ", ")
}

// compactText is raw compacted, or as given when it is not JSON.
func compactText(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return oneLineText(string(raw))
	}
	return b.String()
}

// oneLineText folds runs of white space into one space.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// backoffSummary is how the retry rung's wait reads in the Web UI.
func backoffSummary(attempt int, tool string) string {
	if tool == "" {
		return fmt.Sprintf("backoff before retry %d of the loop", attempt)
	}
	return fmt.Sprintf("backoff before retry %d of %s", attempt, tool)
}
