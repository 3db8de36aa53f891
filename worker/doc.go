// Command unstuck-worker runs the unstuck Temporal worker: it loads and
// validates the agent config, registers the search attributes runs use,
// and executes AgentWorkflow and its activities on a task queue.
//
//	unstuck-worker --config agents.yaml [--task-queue agents]
//
// TEMPORAL_ADDRESS (default 127.0.0.1:7233) and TEMPORAL_NAMESPACE (default
// "default") say which Temporal to use; OPENAI_BASE_URL and OPENAI_API_KEY
// override the config's model endpoint.
//
// Users: its config, docs/configuration.md; deploying and new builds,
// docs/deploying.md; its settings, docs/tuning.md.
package main
