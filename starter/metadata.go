package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/workflows"
)

// summaryLimit is how long the static summary may be: the Web UI shows it
// on one line in the runs list.
const summaryLimit = 200

// withRunMetadata sets the static summary ("agent: task") and the static
// details (markdown: agent, task, input keys) the Temporal Web UI shows for
// a run unstuck starts. They are fixed at start and take no part in replay.
func withRunMetadata(opts client.StartWorkflowOptions, in workflows.AgentInput) client.StartWorkflowOptions {
	opts.StaticSummary, opts.StaticDetails = runMetadata(in)
	return opts
}

// runMetadata is the static summary and details of a run of input in.
func runMetadata(in workflows.AgentInput) (summary, details string) {
	var b strings.Builder
	b.WriteString("### unstuck agent run\n\n")
	if in.From != nil {
		summary = fmt.Sprintf("fork of %s at %s", in.From.WorkflowID, in.From.NodeID)
		if in.Agent != "" {
			summary = in.Agent + ": " + summary
		}
		fmt.Fprintf(&b, "- **fork of:** `%s` at node `%s`", in.From.WorkflowID, in.From.NodeID)
		if len(in.From.Edit) > 0 {
			b.WriteString(" (edited)")
		}
		b.WriteString("\n")
	} else {
		summary = in.Agent + ": " + oneLine(in.Task)
	}
	if in.Agent != "" {
		fmt.Fprintf(&b, "- **agent:** `%s`\n", in.Agent)
	}
	if in.Task != "" {
		fmt.Fprintf(&b, "- **task:** %s\n", policies.ClipText(oneLine(in.Task), 1000))
	}
	if keys := inputKeys(in.Input); len(keys) > 0 {
		fmt.Fprintf(&b, "- **input keys:** `%s`\n", strings.Join(keys, "`, `"))
	}
	if in.OutputSchema != nil {
		b.WriteString("- **output schema:** given\n")
	}
	b.WriteString("\nFollow it with `unstuck status ID` and `unstuck trace ID`.\n")
	return policies.ClipText(summary, summaryLimit), b.String()
}

// inputKeys are the top-level keys of a JSON object input, sorted; none
// for an empty or non-object input.
func inputKeys(raw json.RawMessage) []string {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
