package main

import (
	"context"
	"fmt"
	"io"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// startWithMessage starts the run s says and sends it msg as its first
// message in one call (Update-With-Start): the run takes the message once
// it has resolved its agent, and the answer is the message's (queued), or
// why the run refused it or failed to start. A started run whose message
// was refused is returned with the refusal: it runs on its task.
func startWithMessage(ctx context.Context, tc client.Client, s startSpec, in workflows.AgentInput, msg signals.MessageRequest) (client.WorkflowRun, *signals.MessageResult, error) {
	opts := startOptions(s, in)
	// Update-With-Start takes the conflict policy instead: a run of that
	// id already running is refused, as a plain start refuses it.
	opts.WorkflowExecutionErrorWhenAlreadyStarted = false
	opts.WorkflowIDConflictPolicy = enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL
	op := tc.NewWithStartWorkflowOperation(opts, workflows.WorkflowName, in)
	h, err := tc.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: op,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName: signals.Message, Args: []any{msg}, WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	if err != nil {
		// The start failed (the update's own answer comes from h.Get).
		return nil, nil, explainStartError(s.id, err)
	}
	wr := tc.GetWorkflow(ctx, s.id, h.RunID())
	var res signals.MessageResult
	if err := h.Get(ctx, &res); err != nil {
		return wr, nil, fmt.Errorf("run %s started, but its first message was not taken: %w", s.id, err)
	}
	return wr, &res, nil
}

// printTaken says that the run took its first message: on stdout, or on
// stderr when stdout holds only JSON.
func printTaken(stdout, stderr io.Writer, s startSpec, workflowID string, res signals.MessageResult) {
	w := stdout
	if s.json {
		w = stderr
	}
	fmt.Fprintf(w, "first message taken by %s: %d waiting to be answered (see `unstuck trace %s`)\n", workflowID, res.Queued, workflowID)
}
