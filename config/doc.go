// Package config is the agent and tool configuration of unstuck: the YAML
// file of CONTRACT.md, its loading (with ${ENV} expansion and strict field
// checking) and its validation. A config that is not valid is refused with
// the file, the path inside it and the reason, so a worker never starts on
// a file it would misread.
//
// The types here are also what a run carries: the workflow resolves its
// agent once, in an activity, and keeps the resolved Agent and Tools in its
// state, so a worker restarted with another file never breaks replay.
package config
