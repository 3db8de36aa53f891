// Package activities holds every side effect of unstuck, each a Temporal
// activity with a retry policy chosen by the workflow: resolving an agent
// from the worker's config, model requests (go-openai against any
// OpenAI-compatible endpoint) and tool calls (HTTP and built-in). Errors
// leave here as Temporal application errors whose type is their class, so
// the workflow and Temporal's retry policies can tell them apart.
package activities
