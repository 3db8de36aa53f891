// Package app wires unstuck into a Temporal worker. It holds the client
// options from the environment, the search attributes runs rely on, and the
// registration of AgentWorkflow and the activities, on the run's task queue
// and on the queue of each tool with a limit (workers.go). The worker
// binary, the demo and the integration tests all start workers through it,
// so they run the same code.
//
// Users: workers and task queues, docs/deploying.md; the worker's
// settings, docs/tuning.md.
package app
