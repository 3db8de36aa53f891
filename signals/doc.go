// Package signals holds the names and payload types of everything that
// reaches a running AgentWorkflow from outside (updates, signals) and of
// what it answers to queries (trace, status). It validates incoming payloads
// (their size included, CheckSize). The typed constants (NodeKind,
// NodeStatus, Phase) travel as the contract's plain strings. The CLI, the
// workflow and outside tests all use these types, so the public contract
// lives in one place.
//
// Users: docs/contract.md (Messages in, Queries).
package signals
