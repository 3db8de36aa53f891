package config

import (
	"slices"
	"time"

	"go.yaml.in/yaml/v3"
)

// Defaults for what the file leaves out (docs/configuration.md lists
// every key with its default).
const (
	DefaultAPIKeyEnv   = "OPENAI_API_KEY"
	DefaultHTTPMethod  = "POST"
	DefaultHTTPTimeout = Duration(30 * time.Second)
	DefaultMaxSteps    = 200
	// DefaultCompactAt and DefaultKeepLast fill a policies.context block.
	DefaultCompactAt    = 0.8
	DefaultKeepLast     = 4
	DefaultLoopWindow   = 64
	DefaultLoopRepeats  = 3
	DefaultFailures     = 5
	DefaultCooldown     = Duration(30 * time.Second)
	DefaultHumanTimeout = Duration(24 * time.Hour)
	// DefaultOutageWait: how long a run waits out a service that is down
	// before its ladder climbs (outage.max_wait).
	DefaultOutageWait = Duration(30 * time.Minute)
	// DefaultIdleTimeout is how long a conversation waits for the next
	// message before it completes with its last output.
	DefaultIdleTimeout = Duration(24 * time.Hour)
	DefaultRepairMax   = 3
	// DefaultCallsPerReply and DefaultCallsInFlight are an agent's limits
	// (policies.limits); both far below Temporal's 2,000 pending activities.
	DefaultCallsPerReply = 64
	DefaultCallsInFlight = 16
)

// DefaultRetry is a tool's retry policy when the file says nothing.
func DefaultRetry() Retry {
	return Retry{
		InitialInterval: Duration(time.Second),
		Backoff:         2.0,
		MaxInterval:     Duration(30 * time.Second),
		MaxAttempts:     5,
	}
}

// DefaultEscalation is the escalation ladder when the file says nothing.
func DefaultEscalation() []string { return slices.Clone(rungs) }

// SetDefaults fills what f leaves out (zero values) with the defaults of
// docs/configuration.md. Parse calls it for you; it is for Files built in
// Go.
func (f *File) SetDefaults() { f.setDefaults(nil) }

// setDefaults fills a field only when the file did not write it (doc nil:
// when it is zero). An explicit zero is thus kept: max_attempts: 0 stays
// Temporal's "unlimited", and max_steps: 0 is refused by validation
// rather than silently turned into 200.
func (f *File) setDefaults(doc *yaml.Node) {
	fill := func(p path) bool { return !written(doc, p) }

	if f.Model.APIKeyEnv == "" && fill(path{"model", "api_key_env"}) {
		f.Model.APIKeyEnv = DefaultAPIKeyEnv
	}
	f.Model.setRetryDefaults(path{"model"}, fill)
	for i := range f.Tools {
		f.Tools[i].setDefaults(path{"tools", i}, fill)
	}
	for i := range f.Agents {
		f.Agents[i].setDefaults(path{"agents", i}, fill)
	}
}

// setDefault sets *v to def when it is zero and fill says the file did not
// write it.
func setDefault[T comparable](v *T, def T, p path, fill func(path) bool) {
	var zero T
	if *v == zero && fill(p) {
		*v = def
	}
}

func (t *Tool) setDefaults(p path, fill func(path) bool) {
	if t.MCP == nil {
		// An MCP tool's effect, unless written, comes from the tool's
		// annotations when its server lists it (mcp.go).
		if t.Effect == "" && fill(p.key("effect")) {
			t.Effect, t.EffectDefaulted = EffectRead, true
		}
	}
	setDefault(&t.Approval, ApprovalNever, p.key("approval"), fill)
	setDefault(&t.Reexecute, ReexecuteReuse, p.key("reexecute"), fill)
	if t.HTTP != nil {
		hp := p.key("http")
		setDefault(&t.HTTP.Method, DefaultHTTPMethod, hp.key("method"), fill)
		timeout := DefaultHTTPTimeout
		if t.Local != nil && *t.Local {
			timeout = LocalToolBound // a local call must fit the bound
		}
		setDefault(&t.HTTP.Timeout, timeout, hp.key("timeout"), fill)
	}
	// Every tool carries its full retry policy, each missing field filled
	// on its own, so a run never depends on a later default changing.
	if t.Retry == nil {
		t.Retry = &Retry{}
	}
	rp, def := p.key("retry"), DefaultRetry()
	setDefault(&t.Retry.InitialInterval, def.InitialInterval, rp.key("initial_interval"), fill)
	setDefault(&t.Retry.Backoff, def.Backoff, rp.key("backoff"), fill)
	setDefault(&t.Retry.MaxInterval, def.MaxInterval, rp.key("max_interval"), fill)
	setDefault(&t.Retry.MaxAttempts, def.MaxAttempts, rp.key("max_attempts"), fill)
}

// DefaultModelRetry is the model activity's retry policy when the file
// says nothing (docs/model.md: 1s, 2.0, 60s, 8 attempts).
func DefaultModelRetry() Retry {
	return Retry{InitialInterval: Duration(time.Second), Backoff: 2.0, MaxInterval: Duration(time.Minute), MaxAttempts: 8}
}

// setRetryDefaults fills what a written model retry block leaves out, so
// "retry: {initial_interval: 2s}" keeps 8 attempts instead of meaning
// Temporal's "unlimited". Without a block the workflow uses the default.
func (m *Model) setRetryDefaults(p path, fill func(path) bool) {
	if m.Retry == nil {
		return
	}
	rp, def := p.key("retry"), DefaultModelRetry()
	setDefault(&m.Retry.InitialInterval, def.InitialInterval, rp.key("initial_interval"), fill)
	setDefault(&m.Retry.Backoff, def.Backoff, rp.key("backoff"), fill)
	setDefault(&m.Retry.MaxInterval, def.MaxInterval, rp.key("max_interval"), fill)
	setDefault(&m.Retry.MaxAttempts, def.MaxAttempts, rp.key("max_attempts"), fill)
}

func (a *Agent) setDefaults(p path, fill func(path) bool) {
	setDefault(&a.Kind, KindLLM, p.key("kind"), fill)
	if a.Model != nil {
		a.Model.setRetryDefaults(p.key("model"), fill)
	}
	pp := p.key("policies")
	pol := &a.Policies
	setDefault(&pol.MaxSteps, DefaultMaxSteps, pp.key("max_steps"), fill)
	setDefault(&pol.Loop.Window, DefaultLoopWindow, pp.key("loop").key("window"), fill)
	setDefault(&pol.Loop.Repeats, DefaultLoopRepeats, pp.key("loop").key("repeats"), fill)
	setDefault(&pol.Breaker.Failures, DefaultFailures, pp.key("breaker").key("failures"), fill)
	setDefault(&pol.Breaker.Cooldown, DefaultCooldown, pp.key("breaker").key("cooldown"), fill)
	if pol.Escalation == nil && fill(pp.key("escalation")) {
		pol.Escalation = DefaultEscalation()
	}
	setDefault(&pol.HumanTimeout, DefaultHumanTimeout, pp.key("human_timeout"), fill)
	setDefault(&pol.Repair.MaxAttempts, DefaultRepairMax, pp.key("repair").key("max_attempts"), fill)
	setDefault(&pol.Limits.CallsPerReply, DefaultCallsPerReply, pp.key("limits").key("calls_per_reply"), fill)
	setDefault(&pol.Limits.CallsInFlight, DefaultCallsInFlight, pp.key("limits").key("calls_in_flight"), fill)
	if c := pol.Context; c != nil {
		setDefault(&c.CompactAt, DefaultCompactAt, pp.key("context").key("compact_at"), fill)
		setDefault(&c.KeepLast, DefaultKeepLast, pp.key("context").key("keep_last"), fill)
	}
	if c := a.Conversation; c != nil {
		setDefault(&c.IdleTimeout, DefaultIdleTimeout, p.key("conversation").key("idle_timeout"), fill)
		setDefault(&a.DoubleText, DoubleTextEnqueue, p.key("double_text"), fill)
	}
}
