package config

import (
	"encoding/json"
	"time"
)

// File is the whole agent config file.
type File struct {
	Model  Model   `yaml:"model" json:"model"`
	Tools  []Tool  `yaml:"tools" json:"tools"`
	Agents []Agent `yaml:"agents" json:"agents"`
	// MCPServers are the Model Context Protocol servers whose tools agents
	// may name as server/tool or server/* (mcp.go).
	MCPServers []MCPServer `yaml:"mcp_servers" json:"mcp_servers,omitempty"`
	// Worker tunes the worker process that runs this file (worker.go); the
	// flags of unstuck-worker win over it.
	Worker WorkerTuning `yaml:"worker" json:"worker,omitzero"`
	// Budget is the policies.budget of every agent without one of its
	// own; Prices price runs for cost budgets (budget.go).
	Budget *Budget `yaml:"budget" json:"budget,omitempty"`
	Prices *Prices `yaml:"prices" json:"prices,omitempty"`
	// Notify are the webhooks called when a run needs a person
	// (notify.go).
	Notify []Webhook `yaml:"notify" json:"notify,omitempty"`
	// People are who may answer approvals that name by: groups, and their
	// public keys (people.go).
	People *People `yaml:"people" json:"people,omitempty"`
}

// Model names an OpenAI-compatible chat-completions endpoint. The API key
// itself is never stored: only the name of the variable holding it, so it
// stays out of workflow histories.
type Model struct {
	BaseURL   string `yaml:"base_url" json:"base_url,omitempty"`
	APIKeyEnv string `yaml:"api_key_env" json:"api_key_env,omitempty"`
	Name      string `yaml:"name" json:"name,omitempty"`
	// Retry is the model activity's retry policy (an unstuck extension of
	// the contract; default 1s initial, backoff 2, 60s max, 8 attempts).
	Retry *Retry `yaml:"retry" json:"retry,omitempty"`
	// Timeout bounds one model request (default 2m).
	Timeout Duration `yaml:"timeout" json:"timeout,omitempty"`
	// Stall bounds the silence of a streamed reply (nil: the defaults,
	// StallBounds).
	Stall *Stall `yaml:"stall" json:"stall,omitempty"`
	// ContextWindow is the model's token window, prompt and reply
	// together (0: its family's, ModelWindow); MaxOutputTokens bounds a
	// reply within it (0: the family's).
	ContextWindow   int `yaml:"context_window" json:"context_window,omitempty"`
	MaxOutputTokens int `yaml:"max_output_tokens" json:"max_output_tokens,omitempty"`
	// Fallbacks are the models a request goes to, in order, once this
	// one's retries are spent (an agent's list replaces the file's).
	Fallbacks []ModelFallback `yaml:"fallbacks" json:"fallbacks,omitempty"`
	// Breaker bounds the worker's breaker of this model's endpoint (nil:
	// DefaultFailures unavailable attempts in a row open it for
	// DefaultCooldown); FallbackCooldown is how long a run's requests stay
	// with a fallback model before this one is asked again (0:
	// DefaultCooldown).
	Breaker          *BreakerPolicy `yaml:"breaker" json:"breaker,omitempty"`
	FallbackCooldown Duration       `yaml:"fallback_cooldown" json:"fallback_cooldown,omitempty"`
	// Outage bounds how long a run waits out this model and every
	// fallback being down (nil: the agent's policies.outage, else
	// DefaultOutageWait).
	Outage *Outage `yaml:"outage" json:"outage,omitempty"`
	// Provider names BaseURL's provider (a digest of its host), set by
	// WithoutEndpoints: a run knows which models share a provider, not
	// where they are.
	Provider string `yaml:"-" json:"provider,omitempty"`
	// OwnEndpoint is set by Resolve for an agent that names its own
	// base_url: the OPENAI_* overrides are for the file's model only.
	OwnEndpoint bool `yaml:"-" json:"own_endpoint,omitempty"`
}

// ModelFallback is a model to turn to: its name, and where it differs
// from the model it stands in for, its endpoint and key.
type ModelFallback struct {
	Name      string `yaml:"name" json:"name"`
	BaseURL   string `yaml:"base_url" json:"base_url,omitempty"`
	APIKeyEnv string `yaml:"api_key_env" json:"api_key_env,omitempty"`
	// Stall, when written, replaces the model's: another provider may
	// be slower to answer.
	Stall    *Stall `yaml:"stall" json:"stall,omitempty"`
	Provider string `yaml:"-" json:"provider,omitempty"`
}

// Effects a tool may have on the world.
const (
	EffectRead       = "read"
	EffectIdempotent = "idempotent"
	EffectWrite      = "write"
)

// Tool is one tool an agent may call: an HTTP endpoint or a built-in Go
// function, with its JSON Schema, retry policy and error rules.
type Tool struct {
	Name        string         `yaml:"name" json:"name"`
	Description string         `yaml:"description" json:"description,omitempty"`
	Parameters  map[string]any `yaml:"parameters" json:"parameters,omitempty"`
	HTTP        *HTTPTool      `yaml:"http" json:"http,omitempty"`
	Builtin     string         `yaml:"builtin" json:"builtin,omitempty"`
	// MCP: a tool of an MCP server. In the file it names one to give it a
	// name and overrides (effect, approval, retry, fallback, errors); a
	// run's tools carry it for every MCP tool the agent may call.
	MCP       *MCPTool `yaml:"mcp" json:"mcp,omitempty"`
	Effect    string   `yaml:"effect" json:"effect,omitempty"`       // read (default), idempotent, write
	Approval  Approval `yaml:"approval" json:"approval,omitzero"`    // never (default), always, {when}
	Reexecute string   `yaml:"reexecute" json:"reexecute,omitempty"` // reuse (default), ask
	Retry     *Retry   `yaml:"retry" json:"retry,omitempty"`
	Fallback  string   `yaml:"fallback" json:"fallback,omitempty"`
	// Outage bounds how long a run waits out this tool being down (its
	// breaker open) before the ladder climbs (nil: the agent's, else
	// DefaultOutageWait).
	Outage *Outage `yaml:"outage" json:"outage,omitempty"`
	// Provider names who runs the tool (a service, an account), optional: a
	// fatal error (credentials, permissions) is not escaped by a fallback
	// of the same provider, only by one that names another.
	Provider string `yaml:"provider" json:"provider,omitempty"`
	// Volatile: argument fields that differ between calls that are
	// otherwise the same (a clock, a request id); loop signatures leave
	// them out, besides policies.DefaultVolatile. Each entry is a field
	// name (at any depth) or a JSON pointer ("/meta/sent_at"): see
	// VolatileField.
	Volatile []string    `yaml:"volatile" json:"volatile,omitempty"`
	Errors   []ErrorRule `yaml:"errors" json:"errors,omitempty"`
	// MaxConcurrent: at most this many calls of the tool run at once on one
	// worker process; the rest wait on the tool's task queue (0: no bound).
	MaxConcurrent int `yaml:"max_concurrent" json:"max_concurrent,omitempty"`
	// Rate: at most this many calls start per second, minute or hour
	// ("50/s", "0.5/s", "100/m"), over every worker of the task queue
	// ("": no bound). See tool_limits.go.
	Rate string `yaml:"rate" json:"rate,omitempty"`
	// Local: calls run as Temporal local activities, in the workflow
	// worker (tool_local.go). Unset: built-ins that do not write do, other
	// tools do not.
	Local *bool `yaml:"local" json:"local,omitempty"`
	// ResultSchema: a result (a 2xx body) that does not match it is not a
	// success but a failure of class unverified (verify.go).
	ResultSchema map[string]any `yaml:"result_schema" json:"result_schema,omitempty"`
	// Verify is the call's postcondition (verify.go).
	Verify *Verify `yaml:"verify" json:"verify,omitempty"`
	// Repeatable: a write whose identical call may rightly be made again
	// with the same answer (a reminder, a ping). Without it, a write that
	// answers a repeat of itself as it answered the call before is no
	// progress to the loop detector.
	Repeatable bool `yaml:"repeatable" json:"repeatable,omitempty"`
	// EffectDefaulted: the file did not write effect, so Effect is the
	// default (read), not a declaration; what calls a tool for real on
	// the strength of its effect (eval's --unrecorded live) refuses it.
	EffectDefaulted bool `yaml:"-" json:"-"`
}

// Checked reports whether the tool's results are checked (result_schema
// or verify).
func (t Tool) Checked() bool { return t.ResultSchema != nil || t.Verify != nil }

// companions are the tools a tool's calls may need besides it: its
// fallback (when its breaker opens) and its read-back (when a call is
// checked), so a run that has the tool has them too.
func (t Tool) companions() []string {
	var names []string
	if t.Fallback != "" {
		names = append(names, t.Fallback)
	}
	if t.Verify.ReadBack() {
		names = append(names, t.Verify.Tool)
	}
	return names
}

// HTTPTool is how an HTTP tool is reached.
type HTTPTool struct {
	Method  string   `yaml:"method" json:"method"`
	URL     string   `yaml:"url" json:"url"`
	Timeout Duration `yaml:"timeout" json:"timeout,omitempty"`
	// Headers are sent with every call. Their values are kept as written,
	// ${VAR} included: the tool activity expands them when it sends a
	// call, so a token they name is never in the config a run keeps.
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
}

// Retry is a tool's Temporal retry policy, in config words.
type Retry struct {
	InitialInterval Duration `yaml:"initial_interval" json:"initial_interval,omitempty"`
	Backoff         float64  `yaml:"backoff" json:"backoff,omitempty"`
	MaxInterval     Duration `yaml:"max_interval" json:"max_interval,omitempty"`
	MaxAttempts     int      `yaml:"max_attempts" json:"max_attempts,omitempty"`
}

// ErrorRule classifies a tool error by HTTP status or by a regular
// expression over its message. The first rule that matches wins.
type ErrorRule struct {
	Status  int    `yaml:"status" json:"status,omitempty"`
	Message string `yaml:"message" json:"message,omitempty"`
	Class   string `yaml:"class" json:"class"`
}

// Agent kinds.
const (
	KindLLM   = "llm"
	KindHuman = "human"
)

// Agent is one agent of the registry.
type Agent struct {
	Name          string         `yaml:"name" json:"name"`
	Description   string         `yaml:"description" json:"description,omitempty"`
	Capabilities  []string       `yaml:"capabilities" json:"capabilities,omitempty"`
	Tier          int            `yaml:"tier" json:"tier,omitempty"`
	MaxConcurrent int            `yaml:"max_concurrent" json:"max_concurrent,omitempty"`
	Kind          string         `yaml:"kind" json:"kind,omitempty"` // llm (default), human
	Instructions  string         `yaml:"instructions" json:"instructions,omitempty"`
	Model         *Model         `yaml:"model" json:"model,omitempty"`
	Tools         []string       `yaml:"tools" json:"tools,omitempty"`
	Handoffs      []string       `yaml:"handoffs" json:"handoffs,omitempty"`
	OutputSchema  map[string]any `yaml:"output_schema" json:"output_schema,omitempty"`
	Graph         *Graph         `yaml:"graph" json:"graph,omitempty"`
	Policies      Policies       `yaml:"policies" json:"policies"`
	// StreamCalls asks the model for a streamed reply (default false) and
	// starts each call the model has finished writing while the rest
	// streams (workflows/stream.go); a server that refuses streaming gets a
	// whole-reply request instead.
	StreamCalls bool `yaml:"stream_calls" json:"stream_calls,omitempty"`
	// Conversation keeps the run after its output: the output ends a
	// turn, and the run waits in phase awaiting_user for the next message
	// (workflows/turn.go); after IdleTimeout without one it completes with
	// its last output.
	Conversation *Conversation `yaml:"conversation" json:"conversation,omitempty"`
	// DoubleText is what a message does while a conversation's run works:
	// enqueue (the default: it joins the conversation after the current
	// step), reject (the update is refused), interrupt (the model request
	// in flight is abandoned and the message joins at once) or rollback
	// (as interrupt, and the turn so far is invalidated).
	DoubleText string `yaml:"double_text" json:"double_text,omitempty"`
}

// Conversation is an agent's conversation setting.
type Conversation struct {
	IdleTimeout Duration `yaml:"idle_timeout" json:"idle_timeout"`
}

// Policies for a message that arrives while a conversation's run works.
const (
	DoubleTextEnqueue   = "enqueue"
	DoubleTextReject    = "reject"
	DoubleTextInterrupt = "interrupt"
	DoubleTextRollback  = "rollback"
)

// Graph is an explicit, possibly cyclic, graph of nodes an agent walks.
type Graph struct {
	Start string               `yaml:"start" json:"start"`
	Nodes map[string]GraphNode `yaml:"nodes" json:"nodes"`
	Edges []GraphEdge          `yaml:"edges" json:"edges"`
}

// GraphNode is one node of an explicit graph: exactly one of Tool, LLM,
// Human or End.
type GraphNode struct {
	Tool       string         `yaml:"tool" json:"tool,omitempty"`
	Args       map[string]any `yaml:"args" json:"args,omitempty"`
	OutputPath string         `yaml:"output_path" json:"output_path,omitempty"`
	LLM        bool           `yaml:"llm" json:"llm,omitempty"`
	Human      bool           `yaml:"human" json:"human,omitempty"`
	End        bool           `yaml:"end" json:"end,omitempty"`
	Output     string         `yaml:"output" json:"output,omitempty"`
	// Approval: a human node's {when, by, timeout, then}, as a tool's
	// approval block (human_approval.go; zero: anyone, human_timeout).
	Approval Approval `yaml:"approval" json:"approval,omitzero"`
}

// GraphEdge leads from one node to another when its expr-lang condition
// holds (or always, without one).
type GraphEdge struct {
	From string `yaml:"from" json:"from"`
	To   string `yaml:"to" json:"to"`
	When string `yaml:"when" json:"when,omitempty"`
}

// Policies bound and steer an agent's run.
type Policies struct {
	MaxSteps     int           `yaml:"max_steps" json:"max_steps,omitempty"`
	Loop         LoopPolicy    `yaml:"loop" json:"loop"`
	Breaker      BreakerPolicy `yaml:"breaker" json:"breaker"`
	Escalation   []string      `yaml:"escalation" json:"escalation,omitempty"`
	HumanTimeout Duration      `yaml:"human_timeout" json:"human_timeout,omitempty"`
	// HumanApproval: the ladder's human rung's {when, by, timeout, then}
	// (human_approval.go; zero: anyone, human_timeout).
	HumanApproval Approval     `yaml:"human_approval" json:"human_approval,omitzero"`
	Repair        RepairPolicy `yaml:"repair" json:"repair"`
	Limits        Limits       `yaml:"limits" json:"limits"`
	// HandoffWhen: rules that hand the run over by themselves (the agent
	// needs handoffs). Nil, the default: no rule.
	HandoffWhen *HandoffWhen `yaml:"handoff_when" json:"handoff_when,omitempty"`
	// Context keeps the conversation inside the model's token window
	// (nil, the default: only the payload limit's byte bound applies).
	Context *ContextPolicy `yaml:"context" json:"context,omitempty"`
	// Budget bounds what a run spends (nil, the default: no bound but
	// max_steps; the file's budget when it has one).
	Budget *Budget `yaml:"budget" json:"budget,omitempty"`
	// Outage bounds how long a run waits out a tool that is down, for
	// tools that set none (nil: DefaultOutageWait).
	Outage *Outage `yaml:"outage" json:"outage,omitempty"`
}

// Outage bounds waiting out a service that is down: a run whose call is
// refused by an open breaker waits (phase waiting_outage) until the
// breaker lets a trial through, for at most MaxWait in all, and only
// then climbs the ladder.
type Outage struct {
	MaxWait Duration `yaml:"max_wait" json:"max_wait,omitempty"`
}

// OutageWait is how long a run waits out tool t being down: the tool's
// outage.max_wait, else the agent's, else DefaultOutageWait.
func (p Policies) OutageWait(t Tool) time.Duration {
	switch {
	case t.Outage != nil && t.Outage.MaxWait > 0:
		return t.Outage.MaxWait.D()
	case p.Outage != nil && p.Outage.MaxWait > 0:
		return p.Outage.MaxWait.D()
	}
	return DefaultOutageWait.D()
}

// ModelOutageWait is how long a run waits out its model m and every
// fallback being down: the model's outage.max_wait, else the agent's,
// else DefaultOutageWait.
func (p Policies) ModelOutageWait(m Model) time.Duration {
	if m.Outage != nil && m.Outage.MaxWait > 0 {
		return m.Outage.MaxWait.D()
	}
	return p.OutageWait(Tool{})
}

// ContextPolicy: before a request would take more than CompactAt of the
// tokens the model's window leaves for the prompt, the conversation is
// compacted: the results of tool calls before the last KeepLast steps are
// cleared from it (the trace keeps them whole).
type ContextPolicy struct {
	CompactAt float64 `yaml:"compact_at" json:"compact_at,omitempty"`
	KeepLast  int     `yaml:"keep_last" json:"keep_last,omitempty"`
}

// HandoffWhen are the rules that hand a run over without the model asking
// (issue 12, trigger 4). Each is off at its zero value; the first that
// holds before a model step hands the run over (policies.HandoffRule).
type HandoffWhen struct {
	// ToolFailures: this many failed tool calls in a row (0: off).
	ToolFailures int `yaml:"tool_failures" json:"tool_failures,omitempty"`
	// StepsWithoutProgress: this many model steps in a row in which no
	// tool call completed (0: off).
	StepsWithoutProgress int `yaml:"steps_without_progress" json:"steps_without_progress,omitempty"`
	// UserAsks: a regular expression (Go RE2 syntax) over the user's
	// words, the task and a person's replies; write (?i) to ignore case
	// ("": off).
	UserAsks string `yaml:"user_asks" json:"user_asks,omitempty"`
}

// Limits keep a run inside Temporal's limits (2,000 pending activities per
// workflow, payload sizes) by failing or queueing the smallest thing.
type Limits struct {
	// CallsPerReply: calls of one model reply past this many are answered
	// with {call, error} instead of running.
	CallsPerReply int `yaml:"calls_per_reply" json:"calls_per_reply,omitempty"`
	// CallsInFlight: tool activities of a run running at once; the rest
	// wait in line.
	CallsInFlight int `yaml:"calls_in_flight" json:"calls_in_flight,omitempty"`
}

// LoopPolicy: a cycle repeated Repeats times inside Window events is a loop.
type LoopPolicy struct {
	Window  int `yaml:"window" json:"window,omitempty"`
	Repeats int `yaml:"repeats" json:"repeats,omitempty"`
	// TimeWindow: the same node visited that often that fast is a loop
	// too, whatever the visits did (nil, the default: off).
	TimeWindow *TimeWindow `yaml:"time_window" json:"time_window,omitempty"`
}

// TimeWindow is the time-window loop (seed 000): Visits visits of one
// graph node (in a free-form run, calls of one tool) within Within, by the
// workflow's clock.
type TimeWindow struct {
	Visits int      `yaml:"visits" json:"visits"`
	Within Duration `yaml:"within" json:"within"`
}

// BreakerPolicy opens a circuit (a tool's, a model endpoint's) after
// Failures failures in a row and half-opens it after Cooldown.
type BreakerPolicy struct {
	Failures int      `yaml:"failures" json:"failures,omitempty"`
	Cooldown Duration `yaml:"cooldown" json:"cooldown,omitempty"`
}

// RepairPolicy bounds argument repair per call.
type RepairPolicy struct {
	MaxAttempts int `yaml:"max_attempts" json:"max_attempts,omitempty"`
}

// ModelBreaker is the breaker bounds of a model's endpoint, its defaults
// where the config writes none.
func (m Model) ModelBreaker() BreakerPolicy {
	b := BreakerPolicy{Failures: DefaultFailures, Cooldown: DefaultCooldown}
	if w := m.Breaker; w != nil && w.Failures > 0 {
		b.Failures = w.Failures
	}
	if w := m.Breaker; w != nil && w.Cooldown > 0 {
		b.Cooldown = w.Cooldown
	}
	return b
}

// OnFallbackFor is how long a run's requests stay with a fallback model.
func (m Model) OnFallbackFor() time.Duration {
	if m.FallbackCooldown > 0 {
		return m.FallbackCooldown.D()
	}
	return DefaultCooldown.D()
}

// Duration is a time.Duration written as "10s", "24h" in YAML and JSON.
type Duration time.Duration

// D is the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MCPServer is a Model Context Protocol server the worker connects to:
// a program it starts (command, over stdio) or a streamable HTTP endpoint
// (url). Only the names of environment variables are written here, for
// the program's environment (env) and inside header values (${VAR}), so
// no secret is in the config a run keeps.
type MCPServer struct {
	Name    string            `yaml:"name" json:"name"`
	Command string            `yaml:"command" json:"command,omitempty"`
	Args    []string          `yaml:"args" json:"args,omitempty"`
	Env     []string          `yaml:"env" json:"env,omitempty"`
	URL     string            `yaml:"url" json:"url,omitempty"`
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	// Timeout bounds one call, connecting and listing (default 30s).
	Timeout Duration `yaml:"timeout" json:"timeout,omitempty"`
}

// MCPTool is a tool of an MCP server: which server and the tool's name
// there. SchemaError, set at run start, says the server's input schema
// could not be compiled: the run keeps the tool (with an object schema)
// and each call of it is refused with this error, never sent.
type MCPTool struct {
	Server      string   `yaml:"server" json:"server"`
	Tool        string   `yaml:"tool" json:"tool"`
	Timeout     Duration `yaml:"timeout" json:"timeout,omitempty"`
	SchemaError string   `yaml:"-" json:"schema_error,omitempty"`
}
