package bench

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/workflows"
)

// BareWorkflow is the baseline: the same model and tool activities in the
// plainest Temporal agent loop, the way most samples write it — the whole
// conversation is sent with every model request, and there is no trace,
// State, reference resolution, schema check or query.
func BareWorkflow(ctx workflow.Context, in workflows.AgentInput) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	spec := benchSpec // resolved once at start, as AgentWorkflow's activity does
	tools := []activities.ToolDef{{Name: "noop", Parameters: []byte(`{"type":"object"}`)}, {Name: "sleep", Parameters: []byte(`{"type":"object"}`)}, {Name: "final_output", Parameters: []byte(`{"type":"object"}`)}}
	msgs := []activities.Message{{Role: "system", Content: spec.Agent.Instructions}, {Role: "user", Content: in.Task}}
	var acts *activities.Activities
	for {
		var reply activities.ModelReply
		req := activities.ModelRequest{Agent: spec.Agent.Name, Delta: msgs, Tools: tools}
		if err := workflow.ExecuteActivity(ctx, acts.CallModel, req).Get(ctx, &reply); err != nil {
			return "", err
		}
		msgs = append(msgs, activities.Message{Role: "assistant", Content: reply.Content, ToolCalls: reply.ToolCalls})
		var futures []workflow.Future
		for _, tc := range reply.ToolCalls {
			if tc.Name == "final_output" {
				return tc.Args, nil
			}
			futures = append(futures, workflow.ExecuteActivity(ctx, acts.RunTool, activities.ToolRequest{CallID: tc.ID, Tool: activities.ToolRef{Name: tc.Name}, Args: []byte(tc.Args)}))
		}
		for i, f := range futures {
			var out []byte
			_ = f.Get(ctx, &out)
			msgs = append(msgs, activities.Message{Role: "tool", ToolCallID: reply.ToolCalls[i].ID, Content: string(out)})
		}
	}
}
