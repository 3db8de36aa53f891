// Package config is the agent config file of unstuck: the YAML the worker
// loads, its types, its loading (with ${ENV} expansion and strict field
// checking), its defaults and its validation. A config that is not valid
// is refused with the file, the path inside it and the reason, so a worker
// never starts on a file it would misread.
//
// The types here are also what a run carries: the workflow resolves its
// agent once, in an activity, and keeps the resolved Agent and Tools in its
// state (Resolved.WithoutEndpoints: schemas, policies, approvals, timeouts,
// but no URL, header or key variable), so a worker restarted with another
// file never breaks replay and the history holds no address or secret.
// limits.go and defaults.go define every limit and default once.
//
// Users: docs/configuration.md, whose Reference lists every key with its
// type and default (docs_reference_test.go checks it against these types);
// the file in the public contract, docs/contract.md.
package config
