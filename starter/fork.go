package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// forkOptions are the flags of `unstuck fork`.
type forkOptions struct {
	editFlags
	id, taskQueue, runID string
	wait, json           bool
}

// forkEdit is the edit a fork applies at its node: an edit message
// without node_id (the from's) and fork (it is one).
type forkEdit struct {
	signals.Audit
	Output json.RawMessage `json:"output,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
}

func newForkCmd(c *cli) *cobra.Command {
	o := &forkOptions{}
	cmd := &cobra.Command{
		Use:   "fork SOURCE_WORKFLOW_ID --node ID [--output JSON | --output-text TEXT | --args JSON]",
		Short: "Start a new run from a node of another run (also a closed one), optionally edited",
		Long: `Start a new AgentWorkflow run from a node of another run, the source (running
or closed; the node ids are the ID column of "unstuck trace"): the new run
takes the source's trace up to that node, applies the edit if one is given,
and goes on from there. The source is left as it is. The agent and the task
are the source's.

The edit flags are those of "unstuck edit" (its help details --output for
each kind of node):
  --output JSON        the node's new output (a task's text, a model
                       request's thought and calls, a call's result, a reply)
  --output-text TEXT   the same, TEXT sent as a JSON string
  --args JSON          a call's new arguments (a JSON object): it runs again
--by and --reason are kept in the fork's audit trail, with the edit.

The workflow id defaults to <source>-fork-<6 random hex>. The new run's
workflow id and run id are printed, with the commands to follow it; --wait and --json work
as for "unstuck run" (exit 0 completed, 3 the agent stopped itself, 1 any
other failure).

"unstuck edit --fork" forks too, but through the source, which must still be
running to take the edit message; this command starts the fork itself, so
the source may be closed.

A long run keeps only its newest nodes; older ones stay in the generation
(run id) that held them. To fork at such a node, give that generation's
--run-id (an edit of the node is refused with the command to use).

Equivalent temporal command (use "workflow execute" instead of "workflow
start" to wait):
  temporal workflow start --type AgentWorkflow --task-queue agents \
    --workflow-id travel-1-fork-1 \
    --input '{"from": {"workflow_id": "travel-1", "node_id": "n7", "edit": {"args": {"date": "2024-01-16"}, "by": "alice"}}}'`,
		Example: `  unstuck fork travel-1 --node n7
  unstuck fork travel-1 --node n7 --args '{"from": "NYC", "to": "LAX", "date": "2024-01-16"}' --by alice --reason "try the next day"
  unstuck fork travel-1 --node n1 --output-text "Book NYC to SFO instead" --id travel-sfo --wait
  unstuck fork travel-1 --node n9 --output '{"flights": []}' --wait --json
  unstuck fork long-1 --run-id 5f0c2a9e-... --node n120`,
		Args: oneWorkflowID,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.changed(cmd.Flags())
			source := args[0]
			in, err := o.agentInput(source)
			if err != nil {
				return err
			}
			id := strings.TrimSpace(o.id)
			if id == "" {
				if id, err = newForkID(source); err != nil {
					return err
				}
			}
			return c.start(cmd, startSpec{
				id: id, taskQueue: o.taskQueue, wait: o.wait, json: o.json,
				check: func(ctx context.Context, tc client.Client) error { return c.checkForkSource(ctx, tc, source) },
				intro: forkIntro(source, in.From),
			}, in)
		},
	}
	f := cmd.Flags()
	o.add(f, "the node of the source to fork at: its id in the trace (required)")
	f.StringVar(&o.id, "id", "", "workflow id of the fork (default <source>-fork-<random hex>)")
	f.StringVar(&o.runID, "run-id", "", "run id of the source's generation to fork (default its latest; a long run's archived nodes are in earlier generations: \"unstuck trace\" and an edit's refusal name them)")
	f.StringVar(&o.taskQueue, "task-queue", workflows.TaskQueue, "task queue the worker polls")
	f.BoolVar(&o.wait, "wait", false, "wait for the fork to finish and print its result")
	f.BoolVar(&o.json, "json", false, "print JSON only on stdout")
	return cmd
}

// agentInput checks the fork flags and builds the workflow input: only
// "from", the agent and the task being the source's.
func (o *forkOptions) agentInput(source string) (workflows.AgentInput, error) {
	var in workflows.AgentInput
	if strings.TrimSpace(o.taskQueue) == "" {
		return in, usageErrorf("--task-queue is empty (the worker's default is %q)", workflows.TaskQueue)
	}
	if o.id != "" && strings.TrimSpace(o.id) == source {
		return in, usageErrorf("--id %s is the source's own workflow id: a fork needs one of its own", o.id)
	}
	from := &workflows.ForkFrom{WorkflowID: source, RunID: strings.TrimSpace(o.runID), NodeID: strings.TrimSpace(o.node)}
	if from.NodeID == "" {
		return in, usageErrorf("--node is required: the id of the node to fork at (the ID column of `unstuck trace %s`)", source)
	}
	if !o.given() {
		if o.by != "" || o.reason != "" {
			return in, usageErrorf("--by and --reason describe an edit: give --output, --output-text or --args with them, or neither")
		}
		in.From = from
		return in, nil
	}
	req, err := o.request()
	if err != nil {
		return in, err
	}
	edit, err := json.Marshal(forkEdit{Audit: req.Audit, Output: req.Output, Args: req.Args})
	if err != nil {
		return in, fmt.Errorf("encode the edit: %w", err)
	}
	from.Edit = edit
	in.From = from
	return in, nil
}

// checkForkSource makes sure the source exists and is an agent run before
// a fork of it is started: a mistyped id is told at once, not by a fork
// that fails on its first step.
func (c *cli) checkForkSource(ctx context.Context, tc client.Client, source string) error {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	desc, err := tc.DescribeWorkflowExecution(ctx, source, "")
	var notFound *serviceerror.NotFound
	switch {
	case errors.As(err, &notFound):
		return fmt.Errorf("source workflow %s not found in namespace %q (list runs with `temporal workflow list --namespace %s`)",
			source, c.namespace, c.namespace)
	case err != nil:
		return fmt.Errorf("look up the source workflow %s: %w", source, err)
	}
	if typ := desc.GetWorkflowExecutionInfo().GetType().GetName(); typ != "" && typ != workflows.WorkflowName {
		return fmt.Errorf("source workflow %s is a %s, not an %s run: only agent runs can be forked", source, typ, workflows.WorkflowName)
	}
	return nil
}

// forkIntro is the line printed before the fork's ids.
func forkIntro(source string, from *workflows.ForkFrom) string {
	s := fmt.Sprintf("fork of %s at node %s", source, from.NodeID)
	if len(from.Edit) > 0 {
		s += ", edited"
	}
	return s
}

// newForkID is <source>-fork-<6 hex>.
func newForkID(source string) (string, error) {
	return forkIDWith(source, rand.Read)
}

func forkIDWith(source string, read func([]byte) (int, error)) (string, error) {
	b := make([]byte, 3)
	if _, err := read(b); err != nil {
		return "", fmt.Errorf("generate a workflow id: %w", err)
	}
	return source + "-fork-" + hex.EncodeToString(b), nil
}
