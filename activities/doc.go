// Package activities holds every side effect of unstuck, each a Temporal
// activity with a retry policy chosen by the workflow. They are: resolving
// an agent from the worker's config (ResolveAgent answers its spec without
// any address or secret), model requests (CallModel, RepairArgs and
// Summarize, go-openai against any OpenAI-compatible endpoint), tool calls
// (RunTool: HTTP, built-in and MCP), and reads of the server's record
// (ReadRun and ReadRunAt for forks, ReadRegistry for handoffs,
// VerifyCarried for continue-as-new). Requests name the agent or tool; where a call goes and
// with which secret is looked up here, in the worker's own config, when it
// is made. Errors leave here as Temporal application errors whose type is
// their class, so the workflow and Temporal's retry policies can tell them
// apart, and their text never holds a URL's query, userinfo or a key.
//
// Users: what a call and a model request do, docs/how-it-works.md; the
// model's faults and fallbacks, docs/model.md; where secrets live,
// docs/security.md.
package activities
