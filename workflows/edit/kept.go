package edit

import (
	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// Kept is the node of a call of a resumed reply that the edit kept:
// settled, it is not run again (nil: the call runs). final_output is
// always settled again (it reads what the step's calls wrote, and running
// it has no effect).
func Kept(t *trace.Trace, reqID string, tc activities.ToolCall) *trace.Node {
	if tc.Name == signals.FinalOutputTool {
		return nil
	}
	n := ValidCall(t, reqID, tc.ID)
	if n == nil || (n.Status != signals.StatusCompleted && n.Status != signals.StatusFailed) {
		return nil
	}
	return n
}
