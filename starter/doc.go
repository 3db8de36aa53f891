// Command unstuck is the command-line client of unstuck. It starts agent
// runs (run), reads their status and trace (status, trace), answers runs
// waiting for a person (reply, approve), changes or forks them from a node
// of their trace (edit, fork), hands them to another agent (handoff), and
// runs the demo end to end on a local dev server (demo). It is a thin layer
// over the Temporal Go client, so everything it does can also be done with
// the plain `temporal` CLI; each command's help names the equivalent.
//
// Users: docs/getting-started.md (every command); approving, editing and
// forking, docs/approvals-and-edits.md.
package main
