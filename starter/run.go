package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// agentNameKey is among the search attributes set at start
// (workflows.StartAttributes), so a run can be found by agent (`temporal
// workflow list --query 'AgentName="travel"'`) from its first second,
// before its first workflow task.
var agentNameKey = workflows.AgentNameKey

// runOptions are the flags of `unstuck run`.
type runOptions struct {
	agent        string
	task         string
	by           string
	input        string
	outputSchema string
	id           string
	taskQueue    string
	message      string
	wait         bool
	json         bool
}

func newRunCmd(c *cli) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run --agent NAME --task TEXT",
		Short: "Start an agent run (and optionally wait for its result)",
		Long: `Start an AgentWorkflow run of one agent on a task, print its workflow id and
run id, and the commands to follow it. With --wait, wait for the result and
print the output.

--input and --output-schema must be JSON objects; --output-schema may also
be @path/to/schema.json. The workflow id defaults to
<agent>-<UTC YYYYMMDD-HHMMSS>-<6 random hex>. The AgentName search attribute
is set at start.

With --wait: a completed run prints its output and a summary (exit 0); a run
that stopped itself (application error AgentStopped) prints the reason and
its report (exit 3); any other failure exits 1. Ctrl-C stops waiting, not
the run. With --json, stdout holds only JSON (the start info goes to stderr
when waiting).

--message sends a conversation's first message with the start, in one call
(Temporal's Update-With-Start): the run answers its task, then the message
(double_text enqueue). The message's answer is printed, or why the run
refused it or failed to start (exit 1; a run that started goes on).

Equivalent temporal command (use "workflow execute" instead of "workflow
start" to wait):
  temporal workflow start --type AgentWorkflow --task-queue agents \
    --workflow-id travel-1 --search-attribute 'AgentName="travel"' \
    --input '{"agent":"travel","task":"Book NYC to LAX on 2024-01-15","input":{}}'`,
		Example: `  unstuck run --agent travel --task "Book NYC to LAX on 2024-01-15"
  unstuck run --agent travel --task "Book a flight" --input '{"from":"NYC","to":"LAX"}' --wait
  unstuck run --agent travel --task "Book a flight" --output-schema @schema.json --id trip-42 --wait --json
  unstuck run --agent concierge --task "Ana's stay in Lisbon" --message "A hotel near the river?"`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Everything the user typed is checked before dialing.
			in, err := o.agentInput()
			if err != nil {
				return err
			}
			return c.run(cmd, o, in)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.agent, "agent", "", "agent name from the worker's config (required)")
	f.StringVar(&o.task, "task", "", "what the agent should do, in plain words (required)")
	f.StringVar(&o.by, "by", "", "who gives the task (kept on the run's task node)")
	f.StringVar(&o.input, "input", "", "JSON object the agent gets as input")
	f.StringVar(&o.outputSchema, "output-schema", "", "JSON Schema object the output must match, or @file.json")
	f.StringVar(&o.id, "id", "", "workflow id (default <agent>-<UTC timestamp>-<random hex>)")
	f.StringVar(&o.message, "message", "", "a conversation's first message, sent with the start in one call (Update-With-Start)")
	f.StringVar(&o.taskQueue, "task-queue", workflows.TaskQueue, "task queue the worker polls")
	f.BoolVar(&o.wait, "wait", false, "wait for the run to finish and print its result")
	f.BoolVar(&o.json, "json", false, "print JSON only on stdout")
	return cmd
}

// run starts the workflow and, with --wait, reports its result.
func (c *cli) run(cmd *cobra.Command, o *runOptions, in workflows.AgentInput) error {
	id := o.id
	if id == "" {
		var err error
		if id, err = newWorkflowID(o.agent); err != nil {
			return err
		}
	}
	spec := startSpec{id: id, taskQueue: o.taskQueue, agent: o.agent, wait: o.wait, json: o.json, message: o.firstMessage()}
	return c.start(cmd, spec, in)
}

// firstMessage is --message as the run's first message (nil: none).
func (o runOptions) firstMessage() *signals.MessageRequest {
	if o.message == "" {
		return nil
	}
	return &signals.MessageRequest{Text: o.message, Audit: signals.Audit{By: o.by}}
}

// startSpec is how start starts an AgentWorkflow run: run and fork differ
// only in the id, the input and what they check and say first.
type startSpec struct {
	id, taskQueue string
	// agent sets the AgentName search attribute at start; empty (a fork,
	// whose agent is the source's) leaves it to the workflow.
	agent      string
	wait, json bool
	// check runs on the dialed client before anything is started.
	check func(ctx context.Context, tc client.Client) error
	// intro is a line printed before the start block (not with --json).
	intro string
	// message, when set, is the run's first message, sent with the start
	// (startWithMessage).
	message *signals.MessageRequest
}

// start starts the workflow with input in, prints where it is and, with
// --wait, reports its result.
func (c *cli) start(cmd *cobra.Command, s startSpec, in workflows.AgentInput) error {
	ctx := cmd.Context()
	tc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	if s.check != nil {
		if err := s.check(ctx, tc); err != nil {
			return err
		}
	}

	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	var wr client.WorkflowRun
	var taken *signals.MessageResult
	if s.message != nil {
		wr, taken, err = startWithMessage(ctx, tc, s, in, *s.message)
	} else {
		wr, err = startRun(ctx, tc, s, in)
	}
	if err != nil {
		return err
	}

	switch {
	case s.json && !s.wait:
		if taken != nil {
			printTaken(stdout, stderr, s, wr.GetID(), *taken)
		}
		return printJSON(stdout, startedRun{WorkflowID: wr.GetID(), RunID: wr.GetRunID()})
	case s.json:
		// stdout is reserved for the result; the ids still reach the user.
		printStarted(stderr, s.intro, wr.GetID(), wr.GetRunID())
	default:
		printStarted(stdout, s.intro, wr.GetID(), wr.GetRunID())
	}
	if taken != nil {
		printTaken(stdout, stderr, s, wr.GetID(), *taken)
	}
	if !s.wait {
		return nil
	}
	return waitResult(ctx, wr, s.json, stdout, stderr)
}

// startRun starts the AgentWorkflow run s says, with input in.
func startRun(ctx context.Context, tc client.Client, s startSpec, in workflows.AgentInput) (client.WorkflowRun, error) {
	wr, err := tc.ExecuteWorkflow(ctx, startOptions(s, in), workflows.WorkflowName, in)
	if err != nil {
		return nil, explainStartError(s.id, err)
	}
	return wr, nil
}

// startOptions are the options a run s says starts with.
func startOptions(s startSpec, in workflows.AgentInput) client.StartWorkflowOptions {
	opts := client.StartWorkflowOptions{
		ID:        s.id,
		TaskQueue: s.taskQueue,
		// Otherwise the SDK silently returns the running workflow of that
		// id, and "started" would be a lie.
		WorkflowExecutionErrorWhenAlreadyStarted: true,
	}
	if s.agent != "" {
		opts.TypedSearchAttributes = workflows.StartAttributes(s.agent)
	}
	return withRunMetadata(opts, in)
}

// startedRun is the --json answer of run without --wait.
type startedRun struct {
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
}

// printStarted tells where the run is and how to follow it, after intro
// (a line of its own, when not empty).
func printStarted(w io.Writer, intro, workflowID, runID string) {
	if intro != "" {
		fmt.Fprintln(w, intro)
	}
	fmt.Fprintf(w, "started workflow %s\n  workflow id: %s\n  run id:      %s\n", workflows.WorkflowName, workflowID, runID)
	fmt.Fprintf(w, "follow it with:\n  unstuck status %s\n  unstuck trace %s\n", workflowID, workflowID)
}
