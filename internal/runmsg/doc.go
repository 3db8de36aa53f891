// Package runmsg talks to one run over a Temporal client the way every
// front end of unstuck does (the CLI, the console): send it a message in
// as an update and wait for its answer, and read its whole trace page by
// page. Keeping it in one place means the CLI and the console send the
// same updates and read the same trace.
//
// The messages and queries it sends: docs/contract.md.
package runmsg
