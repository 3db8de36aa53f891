package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.temporal.io/api/serviceerror"

	"github.com/unstuck-dev/unstuck/signals"
)

// editFlags are the flags that describe an edit, shared by edit and fork.
type editFlags struct {
	node, output, outputText, args, by, reason string
	// outputSet, outputTextSet and argsSet: the flag was given, even
	// empty ("" is a valid text; an empty --output or --args is a mistake
	// to report, not a flag to ignore).
	outputSet, outputTextSet, argsSet bool
}

// add declares the flags; what reads "the node" differs by command.
func (e *editFlags) add(f *pflag.FlagSet, nodeHelp string) {
	f.StringVar(&e.node, "node", "", nodeHelp)
	f.StringVar(&e.output, "output", "", "the node's new output, a JSON value (\"unstuck edit --help\" lists it for each kind of node)")
	f.StringVar(&e.outputText, "output-text", "", "the node's new output as text: sent as a JSON string, no quoting needed")
	f.StringVar(&e.args, "args", "", "a call's new arguments, a JSON object: the call runs again with them")
	f.StringVar(&e.by, "by", "", "who edits (kept in the audit trail)")
	f.StringVar(&e.reason, "reason", "", "why (kept in the audit trail)")
}

// changed notes which of the output flags were given at all.
func (e *editFlags) changed(f *pflag.FlagSet) {
	e.outputSet = f.Changed("output")
	e.outputTextSet = f.Changed("output-text")
	e.argsSet = f.Changed("args")
}

// given reports whether any flag of the change itself was given.
func (e *editFlags) given() bool {
	return e.outputSet || e.outputTextSet || e.argsSet
}

// request checks the flags and builds the edit, NodeID included. A bad
// flag is a usage error naming it, caught before anything is dialled.
func (e *editFlags) request() (signals.EditRequest, error) {
	req := signals.EditRequest{NodeID: strings.TrimSpace(e.node), Audit: signals.Audit{By: e.by, Reason: e.reason}}
	if req.NodeID == "" {
		return req, usageErrorf("--node is required: the id of the node to change (the ID column of `unstuck trace`)")
	}
	var given []string
	if e.outputSet {
		given = append(given, "--output")
	}
	if e.outputTextSet {
		given = append(given, "--output-text")
	}
	if e.argsSet {
		given = append(given, "--args")
	}
	switch len(given) {
	case 0:
		return req, usageErrorf("say what changes: --output JSON or --output-text TEXT (the node's new output), or --args JSON (a call's new arguments)")
	case 1:
	default:
		return req, usageErrorf("%s cannot be used together: give one of --output, --output-text or --args (an edit changes a node's output or a call's arguments)",
			strings.Join(given, " and "))
	}
	switch {
	case e.outputSet:
		raw, err := parseJSONValue("--output", e.output)
		if err != nil {
			return req, err
		}
		req.Output = raw
	case e.outputTextSet:
		raw, err := json.Marshal(e.outputText)
		if err != nil {
			return req, usageErrorf("--output-text: %v", err)
		}
		req.Output = raw
	default:
		if strings.TrimSpace(e.args) == "" {
			return req, usageErrorf("--args is empty: give the call's new arguments, a JSON object like {\"key\": \"value\"}")
		}
		raw, err := parseJSONObject("--args", []byte(e.args))
		if err != nil {
			return req, err
		}
		req.Args = raw
	}
	// The flags above catch every mistake Validate knows; it stays as the
	// last word, so the CLI never sends what the run would refuse.
	if err := req.Validate(); err != nil {
		return req, usageErrorf("%v", err)
	}
	return req, nil
}

// parseJSONValue accepts exactly one JSON value of any kind and returns it
// compacted; text meant as a string belongs in --output-text.
func parseJSONValue(flag, text string) (json.RawMessage, error) {
	if strings.TrimSpace(text) == "" {
		return nil, usageErrorf("%s is empty: give a JSON value (for plain text, use --output-text)", flag)
	}
	dec := json.NewDecoder(strings.NewReader(text))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil, usageErrorf("%s is not valid JSON: %v (for plain text, use --output-text; a JSON string is quoted: '\"text\"')", flag, err)
	}
	if dec.More() {
		return nil, usageErrorf("%s has extra data after the JSON value", flag)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return nil, usageErrorf("%s is not valid JSON: %v", flag, err)
	}
	return buf.Bytes(), nil
}

type editOptions struct {
	editFlags
	runID        string
	fork, signal bool
	json         bool
}

func newEditCmd(c *cli) *cobra.Command {
	var o editOptions
	cmd := &cobra.Command{
		Use:   "edit WORKFLOW_ID --node ID (--output JSON | --output-text TEXT | --args JSON)",
		Short: "Change a node of a run (an output, a call's arguments) and go on from there",
		Long: `Send the "edit" message to a run: change one node of its trace (the ids in
the ID column of "unstuck trace") and let the run go on from there. What
depended on the node is invalidated, and the run continues as new from the
edited node, one generation up. The trace keeps an edit node with --by,
--reason and the value before and after.

  --output JSON        the node's new output, by kind of node:
                         task     "new task text", or {"task"?, "input"?}
                         request  "new thought text" (its calls are kept), or
                                  {"content"?, "tool_calls"?: [{"id"?, "name", "args"}]}
                         call     any JSON: the call's result; it is not run again
                         human    "the reply", or {"text", "output"?}
  --output-text TEXT   the same, TEXT sent as a JSON string (no quoting needed)
  --args JSON          a call's new arguments (a JSON object): the call runs
                       again with them; a call waiting for approval keeps
                       waiting, with the new arguments

With --fork the run is left as it is: a new workflow starts from the edited
point and the answer names it. "unstuck fork" does the same from any run,
also a closed one, which can no longer take an edit.

By default it is an update: the run validates the edit and answers with the
edit node, the nodes it invalidated and the new generation (or the fork's
workflow id), or refuses it with the reason. With --signal it is fire and
forget; an edit that cannot apply is recorded in the trace and ignored.

Equivalent temporal commands:
  temporal workflow update execute --workflow-id WORKFLOW_ID --name edit \
    --input '{"node_id": "n7", "args": {"date": "2024-01-16"}, "by": "alice", "reason": "wrong date"}'
  temporal workflow signal --workflow-id WORKFLOW_ID --name edit \
    --input '{"node_id": "n4", "output": "Book NYC to LAX on 2024-01-16", "fork": true}'`,
		Example: `  unstuck edit travel-1 --node n7 --args '{"from": "NYC", "to": "LAX", "date": "2024-01-16"}' --by alice --reason "wrong date"
  unstuck edit travel-1 --node n1 --output-text "Book NYC to LAX on 2024-01-16"
  unstuck edit travel-1 --node n9 --output '{"flights": []}' --reason "the API was down; pretend no flights"
  unstuck edit travel-1 --node n3 --output-text "Search first, then book." --fork --json`,
		Args: oneWorkflowID,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.changed(cmd.Flags())
			req, err := o.request()
			if err != nil {
				return err
			}
			req.Fork = o.fork
			if o.signal && o.json {
				return usageErrorf("--json prints the run's answer, and a --signal has none: drop one of them")
			}
			return c.edit(cmd.Context(), cmd, args[0], o, req)
		},
	}
	f := cmd.Flags()
	o.add(f, "the node to change: its id in the trace (required)")
	f.BoolVar(&o.fork, "fork", false, "leave the run as it is and start a new workflow from the edited point")
	f.BoolVar(&o.signal, "signal", false, "send a signal (fire and forget) instead of an update")
	f.StringVar(&o.runID, "run-id", "", "run id (default: the latest run of the workflow id)")
	f.BoolVar(&o.json, "json", false, "print the run's answer as JSON")
	return cmd
}

func (c *cli) edit(ctx context.Context, cmd *cobra.Command, workflowID string, o editOptions, req signals.EditRequest) error {
	var res signals.EditResult
	if err := c.send(ctx, cmd, workflowID, o.runID, signals.Edit, o.signal, req, &res); err != nil {
		return c.explainEditError(workflowID, req.NodeID, o.signal, err)
	}
	if o.signal {
		return nil
	}
	if o.json {
		return printJSON(cmd.OutOrStdout(), res)
	}
	printEdited(cmd.OutOrStdout(), workflowID, req.NodeID, res)
	return nil
}

// printEdited says what the edit did: the edit node, what it invalidated,
// and where the run (or its fork) goes on.
func printEdited(w io.Writer, workflowID, node string, res signals.EditResult) {
	if res.Edited != "" {
		node = res.Edited
	}
	invalidated := "none"
	if len(res.Invalidated) > 0 {
		invalidated = strings.Join(res.Invalidated, ", ")
	}
	if res.WorkflowID != "" {
		fmt.Fprintf(w, "%s: node %s edited in a fork (edit node %s); the run itself is unchanged\n", workflowID, node, cell(res.NodeID))
		fmt.Fprintf(w, "  invalidated: %s\n", invalidated)
		fmt.Fprintf(w, "  fork:        %s\n", res.WorkflowID)
		fmt.Fprintf(w, "follow it with:\n  unstuck status %s\n  unstuck trace %s\n", res.WorkflowID, res.WorkflowID)
		return
	}
	fmt.Fprintf(w, "%s: node %s edited (edit node %s)\n", workflowID, node, cell(res.NodeID))
	fmt.Fprintf(w, "  invalidated: %s\n", invalidated)
	fmt.Fprintf(w, "  the run goes on from there as generation %d: `unstuck trace %s`\n", res.Generation, workflowID)
}

// explainEditError words a failed edit; a closed run cannot take one, but
// can be forked.
func (c *cli) explainEditError(workflowID, node string, signal bool, err error) error {
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return fmt.Errorf("edit for %s failed: %w\n"+
			"the workflow is not in namespace %q, or its run is closed: a closed run can still be forked, with `unstuck fork %s --node %s ...`",
			workflowID, err, c.namespace, workflowID, node)
	}
	if signal {
		return err
	}
	return fmt.Errorf("edit for %s failed: %w", workflowID, err)
}
