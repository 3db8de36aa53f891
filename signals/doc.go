// Package signals holds the names and payload types of everything that
// reaches a running AgentWorkflow from outside (updates, signals) and what
// it answers to queries (trace, status), with the validation of incoming
// payloads. The CLI, the workflow and outside tests all use these types, so
// the contract of CONTRACT.md lives in one place.
package signals
