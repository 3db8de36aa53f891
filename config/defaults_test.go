package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDefaults(t *testing.T) {
	f, err := parse(y(
		"model: {base_url: http://m/v1, name: m}",
		"tools:",
		"  - {name: a, http: {url: http://t/a}}",
		"  - {name: b, builtin: echo}",
		"agents: [{name: x, tools: [a, b]}]"))
	require.NoError(t, err)

	require.Equal(t, "OPENAI_API_KEY", f.Model.APIKeyEnv)
	a := f.Tools[0]
	require.Equal(t, EffectRead, a.Effect)
	require.Equal(t, ApprovalNever, a.Approval)
	require.Equal(t, ReexecuteReuse, a.Reexecute)
	require.Equal(t, "POST", a.HTTP.Method)
	require.Equal(t, 30*time.Second, a.HTTP.Timeout.D())
	require.Equal(t, &Retry{InitialInterval: Duration(time.Second), Backoff: 2, MaxInterval: Duration(30 * time.Second), MaxAttempts: 5}, a.Retry)
	require.Nil(t, f.Tools[1].HTTP, "a builtin gets no http block")
	require.Equal(t, a.Retry, f.Tools[1].Retry)

	x := f.Agents[0]
	require.Equal(t, KindLLM, x.Kind)
	require.Equal(t, Policies{
		MaxSteps:     200,
		Loop:         LoopPolicy{Window: 64, Repeats: 3},
		Breaker:      BreakerPolicy{Failures: 5, Cooldown: Duration(30 * time.Second)},
		Escalation:   []string{"retry", "substitute", "explore", "rollback", "handoff", "human", "stop"},
		HumanTimeout: Duration(24 * time.Hour),
		Repair:       RepairPolicy{MaxAttempts: 3},
		Limits:       Limits{CallsPerReply: 64, CallsInFlight: 16},
	}, x.Policies)
}

func TestDefaultsFillEachMissingField(t *testing.T) {
	f, err := parse(y(
		"model: {base_url: http://m/v1, name: m}",
		"tools:",
		"  - name: a",
		"    http: {url: http://t/a, method: GET}",
		"    retry: {max_interval: 2m}",
		"agents:",
		"  - name: x",
		"    policies: {loop: {repeats: 4}, breaker: {cooldown: 1m}, escalation: [retry, stop]}"))
	require.NoError(t, err)
	require.Equal(t, "GET", f.Tools[0].HTTP.Method)
	require.Equal(t, &Retry{InitialInterval: Duration(time.Second), Backoff: 2, MaxInterval: Duration(2 * time.Minute), MaxAttempts: 5}, f.Tools[0].Retry)
	p := f.Agents[0].Policies
	require.Equal(t, LoopPolicy{Window: 64, Repeats: 4}, p.Loop)
	require.Equal(t, BreakerPolicy{Failures: 5, Cooldown: Duration(time.Minute)}, p.Breaker)
	require.Equal(t, []string{"retry", "stop"}, p.Escalation)
}

// TestDefaultsKeepExplicitZero: a zero the file writes is kept, not
// replaced by the default: max_attempts: 0 is Temporal's "unlimited",
// repair 0 turns repair off, and an empty api_key_env sends no key.
func TestDefaultsKeepExplicitZero(t *testing.T) {
	f, err := parse(y(
		"model: {base_url: http://m/v1, name: m, api_key_env: ''}",
		"tools:",
		"  - {name: a, http: {url: http://t/a}, retry: {max_attempts: 0}}",
		"agents:",
		"  - {name: x, policies: {repair: {max_attempts: 0}}}"))
	require.NoError(t, err)
	require.Equal(t, 0, f.Tools[0].Retry.MaxAttempts)
	require.Equal(t, 0, f.Agents[0].Policies.Repair.MaxAttempts)
	require.Equal(t, "", f.Model.APIKeyEnv)
}

// TestDefaultsNullIsMissing: "key:" with no value (or an empty ${VAR:-})
// means "use the default".
func TestDefaultsNullIsMissing(t *testing.T) {
	f, err := parse(y(
		"model: {base_url: http://m/v1, name: m}",
		"tools:",
		"  - {name: a, http: {url: http://t/a}, retry: {max_attempts: ${ATTEMPTS:-}}}",
		"agents:",
		"  - name: x",
		"    policies:",
		"      max_steps:"))
	require.NoError(t, err)
	require.Equal(t, 5, f.Tools[0].Retry.MaxAttempts)
	require.Equal(t, 200, f.Agents[0].Policies.MaxSteps)
}

func TestSetDefaultsInGo(t *testing.T) {
	f := &File{Tools: []Tool{{Name: "a", HTTP: &HTTPTool{URL: "http://t/a"}}}, Agents: []Agent{{Name: "x"}}}
	f.SetDefaults()
	require.Equal(t, "POST", f.Tools[0].HTTP.Method)
	require.Equal(t, DefaultRetry(), *f.Tools[0].Retry)
	require.Equal(t, DefaultEscalation(), f.Agents[0].Policies.Escalation)
	require.Equal(t, DefaultAPIKeyEnv, f.Model.APIKeyEnv)
}
