package person

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// decideByDeadline settles call nodeID of tool, whose approval's own
// deadline d passed with no decision (the last group's, when it
// escalates): approved as d's then says (the call runs with args), or
// rejected. The approval node says the deadline
// decided, not a person.
func (p *Waits) decideByDeadline(ctx workflow.Context, nodeID string, tool config.Tool, args json.RawMessage, d config.Deadline) (config.Tool, json.RawMessage, string) {
	then, within := config.ThenReject, d.Timeout.D() // escalate's last group rejects
	if d.Decides() == config.ThenApprove {
		then = config.ThenApprove
	}
	record := func(status signals.NodeStatus, note, errText string) {
		p.host.AddNode(ctx, signals.Node{
			Kind: signals.KindApproval, Status: status, Parents: []string{nodeID},
			Tool: tool.Name, Note: note, Error: errText,
		}, nil, map[string]any{"decision": then, "by_deadline": true, "timeout": within.String()})
	}
	if then != config.ThenApprove {
		why := fmt.Sprintf("rejected by the deadline: no approval decision within %s", within)
		record(signals.StatusCompleted, why, "")
		return tool, nil, why
	}
	if problem := p.host.CheckArgs(tool, args); problem != "" {
		why := "approved by the deadline, but its arguments are refused: " + problem
		record(signals.StatusFailed, "", why)
		return tool, nil, why
	}
	record(signals.StatusCompleted, fmt.Sprintf("approved by the deadline: no decision within %s", within), "")
	return tool, args, ""
}
