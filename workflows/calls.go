package workflows

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// Reserved tool names the engine adds to every agent.
const (
	FinalOutputTool = "final_output"
	HandoffTool     = "handoff"
)

// OutputPathArg is the optional argument every tool gains: where in the
// run's State its result is written.
const OutputPathArg = "_outputPath"

// finalCall is a final_output call whose arguments passed the output schema.
type finalCall struct {
	callID string
	output json.RawMessage
}

// runCalls executes the calls of one reply, one after another, each as a
// trace node whose result or error goes back to the model. A valid
// final_output is answered once the other calls have finished.
func (r *runner) runCalls(ctx workflow.Context, reqID string, calls []activities.ToolCall) (*finalCall, error) {
	var final *finalCall
	var stopErr error
	var callIDs []string
	for _, tc := range calls {
		node := r.addNode(ctx, Node{Node: signals.Node{
			Kind: signals.KindCall, Status: signals.StatusRunning, Parents: []string{reqID},
			Tool: tc.Name, Args: rawOrString(tc.Args),
		}, ModelCallID: tc.ID, Step: r.run.Step})
		id := node.ID
		callIDs = append(callIDs, id)

		args, problem := parseArgs(tc.Args)
		switch {
		case problem != "":
			r.finishNode(ctx, id, nil, problem)
		case tc.Name == FinalOutputTool:
			if out, errText := r.checkOutput(args); errText != "" {
				if err := r.failOutput(ctx, id, errText); err != nil {
					stopErr = err
				}
			} else {
				r.finishNode(ctx, id, out, "")
				final = &finalCall{callID: id, output: out}
			}
		default:
			tool, ok := r.agentTool(tc.Name)
			if !ok {
				r.finishNode(ctx, id, nil, unknownTool(tc.Name, r.toolNames()))
				continue
			}
			r.execute(ctx, id, tool, args)
		}
	}
	r.run.Frontier = callIDs
	if stopErr != nil {
		return nil, stopErr
	}
	return final, nil
}

// execute runs one tool call as an activity with the tool's timeout and
// retry policy, and settles its node.
func (r *runner) execute(ctx workflow.Context, id string, tool config.Tool, args json.RawMessage) {
	args, outputPath := splitOutputPath(args)
	var result json.RawMessage
	actx := workflow.WithActivityOptions(ctx, toolOptions(tool))
	err := workflow.ExecuteActivity(actx, acts.RunTool, activities.ToolRequest{CallID: id, Tool: tool, Args: args}).Get(ctx, &result)
	if err != nil {
		msg := errorText(err)
		r.run.LastError = msg
		r.finishNode(ctx, id, nil, msg)
		return
	}
	r.finishNode(ctx, id, result, "")
	if outputPath != "" {
		writeState(r.run.State, outputPath, result)
	}
}

// parseArgs checks that a call's arguments are a JSON object.
func parseArgs(text string) (json.RawMessage, string) {
	if text == "" {
		return json.RawMessage(`{}`), ""
	}
	if !json.Valid([]byte(text)) {
		return nil, fmt.Sprintf("arguments are not valid JSON: %s", shortText(text, 200))
	}
	if !isJSONObject([]byte(text)) {
		return nil, "arguments must be a JSON object"
	}
	return json.RawMessage(text), ""
}

func isJSONObject(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

func shortText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// agentTool finds one of the agent's own tools (fallbacks are not offered
// to the model).
func (r *runner) agentTool(name string) (config.Tool, bool) {
	for _, n := range r.run.Spec.Agent.Tools {
		if n == name {
			return r.run.Spec.Tool(name)
		}
	}
	return config.Tool{}, false
}

// toolNames lists what the model may call.
func (r *runner) toolNames() []string {
	return append(append([]string{}, r.run.Spec.Agent.Tools...), FinalOutputTool)
}
