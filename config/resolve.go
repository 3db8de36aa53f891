package config

import (
	"fmt"
	"os"
	"sort"
)

// Resolved is what a run needs of the config: its agent, the model it
// talks to and the tools it may call. The workflow keeps it in its state
// (it travels as JSON), so a worker restarted with another file never
// changes a running agent. It shares maps with the File: treat it as
// read-only.
type Resolved struct {
	Agent Agent  `json:"agent"`
	Model Model  `json:"model"`
	Tools []Tool `json:"tools"` // the agent's tools and their fallbacks, by name
	// Registry is every agent of the config as a handoff sees it, for an
	// agent that can hand over (it has handoffs, or is a person); kept with
	// the run like the rest, so the agents a run may hand to never change
	// under it.
	Registry []Peer `json:"registry,omitempty"`
	// Pricing is the prices of the agent's models and tools, for a cost
	// budget (nil: the file has no prices).
	Pricing *Pricing `json:"pricing,omitempty"`
	// Notify are the webhooks told when the run waits for a person, by
	// name and events only (nil: none): the notify activity looks up
	// where they are.
	Notify []Webhook `json:"notify,omitempty"`
	// People are the groups the run's tools name in approval.by and the
	// public keys of their members and of the console (nil: no tool names
	// by), so an approval is checked from what the run carries.
	People *People `json:"people,omitempty"`
}

// Peer is an agent of the registry as a handoff sees it: what it can do
// and how much it may take, never its model or tools.
type Peer struct {
	Name          string   `json:"name"`
	Description   string   `json:"description,omitempty"`
	Capabilities  []string `json:"capabilities,omitempty"`
	Tier          int      `json:"tier,omitempty"`
	MaxConcurrent int      `json:"max_concurrent,omitempty"`
	Kind          string   `json:"kind,omitempty"`
}

// Human says whether the peer is a person (kind: human).
func (p Peer) Human() bool { return p.Kind == KindHuman }

// CanHandOff says whether an agent can hand a run over: it names targets,
// or it is a person (who may pass a run to any agent when no handoffs
// are named).
func (a Agent) CanHandOff() bool { return len(a.Handoffs) > 0 || a.Kind == KindHuman }

// HandoffTargets is the agent's handoffs as a handoff applies them: a
// person with none named may hand over to any agent.
func (a Agent) HandoffTargets() []string {
	if len(a.Handoffs) == 0 && a.Kind == KindHuman {
		return []string{HandoffAny}
	}
	return a.Handoffs
}

// Peer finds an agent of the registry by name.
func (r *Resolved) Peer(name string) (Peer, bool) {
	for _, p := range r.Registry {
		if p.Name == name {
			return p, true
		}
	}
	return Peer{}, false
}

// Resolve looks an agent up. Its Model is the agent's own fields over the
// file's, then OPENAI_BASE_URL (when set and not empty) over base_url, as
// docs/contract.md promises. Its Tools are the agent's tools and, transitively,
// their fallbacks and read-back tools, since a substitute must be callable
// when a breaker opens and a read-back when a call is checked. getenv nil is os.LookupEnv.
func (f *File) Resolve(agent string, getenv func(string) (string, bool)) (*Resolved, error) {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	names := map[string]int{}
	var a *Agent
	for i := range f.Agents {
		names[f.Agents[i].Name] = i
		if f.Agents[i].Name == agent && a == nil {
			a = &f.Agents[i]
		}
	}
	if a == nil {
		return nil, fmt.Errorf("unknown agent %q (known: %s)", agent, known(names))
	}
	r := &Resolved{Agent: *a, Model: f.agentModel(a, getenv)}
	r.Tools = f.toolClosure(a.Tools)
	if r.Agent.Policies.Budget == nil && a.Kind != KindHuman {
		r.Agent.Policies.Budget = f.Budget
	}
	// The run carries its bound, as it carries the others, so a later
	// default does not change what a run under way waits.
	if o := r.Agent.Policies.Outage; o == nil || o.MaxWait <= 0 {
		r.Agent.Policies.Outage = &Outage{MaxWait: DefaultOutageWait}
	}
	r.Pricing = f.Prices.pricing(r)
	r.Notify = f.webhookNames()
	r.People = f.peopleFor(r.Tools, a.HumanApprovals())
	if a.CanHandOff() {
		for _, p := range f.Agents {
			r.Registry = append(r.Registry, Peer{Name: p.Name, Description: p.Description, Capabilities: p.Capabilities,
				Tier: p.Tier, MaxConcurrent: p.MaxConcurrent, Kind: p.Kind})
		}
	}
	return r, nil
}

// agentModel is the model an agent talks to: its own fields over the
// file's, then OPENAI_BASE_URL (when set and not empty) over the file's
// base_url. An agent that names an endpoint of its own keeps it, and never
// gets OPENAI_API_KEY: that key would go to another provider.
func (f *File) agentModel(a *Agent, getenv func(string) (string, bool)) Model {
	m := f.Model
	if own := a.Model; own != nil {
		if own.BaseURL != "" {
			m.BaseURL = own.BaseURL
		}
		if own.APIKeyEnv != "" {
			m.APIKeyEnv = own.APIKeyEnv
		}
		if own.Name != "" {
			m.Name = own.Name
		}
		if own.Retry != nil {
			m.Retry = own.Retry
		}
		if own.Timeout > 0 {
			m.Timeout = own.Timeout
		}
		if own.Stall != nil {
			m.Stall = own.Stall
		}
		if own.ContextWindow > 0 {
			m.ContextWindow = own.ContextWindow
		}
		if own.MaxOutputTokens > 0 {
			m.MaxOutputTokens = own.MaxOutputTokens
		}
		if own.Fallbacks != nil {
			m.Fallbacks = own.Fallbacks
		}
		if own.Breaker != nil {
			m.Breaker = own.Breaker
		}
		if own.FallbackCooldown > 0 {
			m.FallbackCooldown = own.FallbackCooldown
		}
		if own.Outage != nil {
			m.Outage = own.Outage
		}
	}
	if a.Model != nil && a.Model.BaseURL != "" {
		m.OwnEndpoint = true
	} else if v, ok := getenv("OPENAI_BASE_URL"); ok && v != "" {
		m.BaseURL = v
	}
	return m
}

// ModelFor is the model an agent of this file talks to, read at call time
// by the model activity: where a request goes is decided by the worker's
// own config, never by the workflow. An empty name is the file's model
// (requests recorded before they named their agent). getenv nil is
// os.LookupEnv.
func (f *File) ModelFor(agent string, getenv func(string) (string, bool)) (Model, error) {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	if agent == "" {
		return f.agentModel(&Agent{}, getenv), nil
	}
	for i := range f.Agents {
		if f.Agents[i].Name == agent {
			return f.agentModel(&f.Agents[i], getenv), nil
		}
	}
	return Model{}, fmt.Errorf("agent %q is no longer in this worker's config, so its model is unknown", agent)
}

// StreamsReply tells the model activity whether agent's replies are asked
// for as a stream: it streams calls (stream_calls), or it is a
// conversation, whose reply a follower reads as it is written. Read from
// the worker's config at call time, as the endpoint is, so the workflow's
// requests and histories do not change. An unknown or empty agent does
// not stream: the whole reply is the safe default.
func (f *File) StreamsReply(agent string) bool {
	for i := range f.Agents {
		if f.Agents[i].Name == agent {
			return f.Agents[i].StreamCalls || f.Agents[i].Conversation != nil
		}
	}
	return false
}

// CallsPerReply is agent's calls_per_reply as the worker's config has it
// now (the default for an unknown agent): the model activity sends no more
// streamed calls than a run would take.
func (f *File) CallsPerReply(agent string) int {
	for i := range f.Agents {
		if f.Agents[i].Name == agent {
			return f.Agents[i].Policies.Limits.PerReply()
		}
	}
	return DefaultCallsPerReply
}

// Tool finds a tool of the file by name: the tool activity looks its
// address up here at call time.
func (f *File) Tool(name string) (Tool, bool) {
	for _, t := range f.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// WithoutEndpoints is what a run keeps of the resolved agent: everything the
// workflow decides on (schemas, policies, approvals, fallbacks, timeouts,
// retries), but no address and no secret's name. The history then holds
// names only, and the activities look up where a call goes in the worker's
// own config, so nothing a starter or a message sends can redirect a call.
func (r *Resolved) WithoutEndpoints() *Resolved {
	out := *r
	out.Model.Provider = providerOf(r.Model.BaseURL)
	out.Model.BaseURL, out.Model.APIKeyEnv, out.Model.OwnEndpoint = "", "", false
	out.Model.Fallbacks = make([]ModelFallback, len(r.Model.Fallbacks))
	for i := range r.Model.Fallbacks {
		fb := r.Model.At(i + 1)
		out.Model.Fallbacks[i] = ModelFallback{Name: fb.Name, Provider: providerOf(fb.BaseURL)}
	}
	if len(out.Model.Fallbacks) == 0 {
		out.Model.Fallbacks = nil
	}
	out.Tools = make([]Tool, len(r.Tools))
	for i, t := range r.Tools {
		if t.HTTP != nil {
			t.HTTP = &HTTPTool{Timeout: t.HTTP.Timeout}
		}
		out.Tools[i] = t
	}
	if r.Agent.Model != nil {
		m := *r.Agent.Model
		m.BaseURL, m.APIKeyEnv = "", ""
		out.Agent.Model = &m
	}
	return &out
}

// toolClosure is the named tools plus, transitively, their fallbacks
// and read-back tools (verify.tool), sorted by name. Unknown names are skipped: validation has refused them already.
func (f *File) toolClosure(names []string) []Tool {
	byName := make(map[string]Tool, len(f.Tools))
	for _, t := range f.Tools {
		if _, dup := byName[t.Name]; !dup {
			byName[t.Name] = t
		}
	}
	picked := map[string]Tool{}
	for todo := names; len(todo) > 0; {
		n := todo[0]
		todo = todo[1:]
		t, ok := byName[n]
		if _, seen := picked[n]; seen || !ok {
			continue
		}
		picked[n] = t
		todo = append(todo, t.companions()...)
	}
	out := make([]Tool, 0, len(picked))
	for _, t := range picked {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// AgentTool finds one of the agent's own tools, the ones offered to the
// model (fallbacks are resolved too, but never offered).
func (r *Resolved) AgentTool(name string) (Tool, bool) {
	for _, n := range r.Agent.Tools {
		if n == name {
			return r.Tool(name)
		}
	}
	return Tool{}, false
}

// Tool finds one of the resolved tools by name.
func (r *Resolved) Tool(name string) (Tool, bool) {
	for _, t := range r.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// APIKey is the key to send to the model: OPENAI_API_KEY when set and not
// empty (docs/contract.md: it overrides the config), else the variable named
// by api_key_env. It is read at call time and never stored, so it stays
// out of workflow histories.
func (m Model) APIKey(getenv func(string) (string, bool)) string {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	if v, ok := getenv("OPENAI_API_KEY"); ok && v != "" && !m.OwnEndpoint {
		return v
	}
	if m.APIKeyEnv == "" {
		return ""
	}
	v, _ := getenv(m.APIKeyEnv)
	return v
}
