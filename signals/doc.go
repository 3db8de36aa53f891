// Package signals holds the names and payload types of everything that
// reaches a running AgentWorkflow from outside (updates, signals) and what
// it answers to queries (trace, status), with the validation of incoming
// payloads (their size included, CheckSize). The typed constants (NodeKind,
// NodeStatus, Phase) travel as the contract's plain strings. The CLI, the
// workflow and outside tests all use these types, so the public contract
// lives in one place.
package signals
