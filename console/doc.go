// Package console is `unstuck console`: a small web app over the Temporal
// client to watch and steer runs. It lists runs (filtered by agent and
// phase through a visibility query on the AgentName and AgentPhase search
// attributes), shows a run's status and its trace as a graph, and sends
// the same updates as the CLI (approve, edit, handoff, reply, budget,
// message), showing each update's answer or the run's refusal. A
// conversation's run page is a chat (chat.go) that follows the run's
// events live. Pages are html/template, refreshed in place with htmx
// (vendored under static/) and, for the chat, a small script of our own;
// there is no front-end build step.
//
// The console holds no state of its own: everything it shows comes from
// the runs' queries and the visibility store, and everything it does is an
// update a run validates. Its DOM (ids, classes, data attributes) is a
// contract the browser tests rely on: add to it, never rename.
//
// Users: docs/observing.md (Console).
package console
