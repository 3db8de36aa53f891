package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/internal/termtext"
)

type followOptions struct {
	after    string
	asJSON   bool
	interval time.Duration
}

// newFollowCmd is `unstuck follow`: a run's events as they happen.
func newFollowCmd(c *cli) *cobra.Command {
	var o followOptions
	cmd := &cobra.Command{
		Use:   "follow WORKFLOW_ID",
		Short: "Print a run's events as they happen, until it ends",
		Long: `Print a run's events as they happen: each trace node added or settled, each
phase, each call waiting for approval, and the run's end with its result. It
follows the workflow id across continue-as-new and ends with the run.

Every event has a stable id (the first column; "id" with --json), except text:
the model's reply as it is written ("text NODE @OFFSET DELTA"; offset 0 starts
the node's text again), for agents whose replies stream (conversations and
stream_calls). Resume with --after ID: every later event is printed once.

The run is described every --interval (one call to the server); its trace and
status queries are asked only when its history grew, so a worker must be
polling the run's task queue (see docs/conversations.md, "Following a run").`,
		Example: `  unstuck follow chat-1
  unstuck follow chat-1 --json | jq -c 'select(.type == "node") | .node.id'
  unstuck follow chat-1 --after '2026-11-29T04:00:00.5Z/n12/completed'`,
		Args: oneWorkflowID,
		RunE: func(cmd *cobra.Command, args []string) error {
			var from feed.Cursor
			if o.after != "" {
				var err error
				if from, err = feed.ParseID(o.after); err != nil {
					return usageErrorf("--after: %v", err)
				}
			}
			if o.interval <= 0 {
				return usageErrorf("--interval must be > 0, got %s", o.interval)
			}
			tc, err := c.client(cmd.Context())
			if err != nil {
				return err
			}
			defer tc.Close()
			src := feed.Run{Client: tc, WorkflowID: args[0], QueryTimeout: queryTimeout}
			out := cmd.OutOrStdout()
			return feed.Follow(cmd.Context(), src, from, o.interval, func(e feed.Event) error {
				if o.asJSON {
					b, err := json.Marshal(e)
					if err != nil {
						return err
					}
					_, err = fmt.Fprintf(out, "%s\n", termtext.VisibleJSON(string(b)))
					return err
				}
				return printEvent(out, e)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.after, "after", "", "resume after this event id")
	f.BoolVar(&o.asJSON, "json", false, "print each event as a JSON line")
	f.DurationVar(&o.interval, "interval", 250*time.Millisecond, "how often to read the run")
	return cmd
}

// printEvent prints an event as a line: its id, then what it says.
func printEvent(w io.Writer, e feed.Event) error {
	var what string
	switch e.Type {
	case feed.TypeNode, feed.TypeApproval:
		n := e.Node
		what = fmt.Sprintf("%s %s %s", e.Type, n.ID, n.Kind)
		if n.Tool != "" {
			what += " " + oneLine(n.Tool)
		}
		what += " " + string(n.Status)
		if n.Error != "" {
			what += ": " + oneLine(n.Error)
		}
	case feed.TypePhase:
		what = "phase " + string(e.Phase)
	case feed.TypeEnd:
		what = "end " + termtext.VisibleJSON(string(e.Result))
	case feed.TypeText:
		what = fmt.Sprintf("text %s @%d %q", e.Text.Node, e.Text.Offset, e.Text.Delta)
	}
	_, err := fmt.Fprintf(w, "%s  %s\n", e.ID, what)
	return err
}
