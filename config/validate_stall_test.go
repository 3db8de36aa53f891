package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestValidateStall(t *testing.T) {
	// agent is a file whose agent x (line 2) has its own model block.
	agent := func(fileModel, own string) string {
		return y("model: {base_url: http://m/v1, name: m"+fileModel+"}", "agents: [{name: x, model: {"+own+"}}]")
	}
	const firstZero = "must be > 0 (leave it out for the default, 1m0s), got "
	const idleZero = "must be > 0 (leave it out for the default, 30s), got "
	runProblems(t, []problemCase{
		{"a zero first_byte", model(", stall: {first_byte: 0s}"), 1, "model.stall.first_byte", firstZero + "0s"},
		{"a zero idle without unit", model(", stall: {idle: 0}"), 1, "model.stall.idle", idleZero + "0s"},
		{"a negative idle", model(", stall: {idle: -5s}"), 1, "model.stall.idle", idleZero + "-5s"},
		{"not a duration", model(", stall: {first_byte: soon}"), 1, "model.stall.first_byte", `invalid duration "soon"`},
		{"an unknown key", model(", stall: {first_token: 5s}"), 1, "model.stall.first_token", "unknown"},
		{"above the default timeout", model(", stall: {first_byte: 3m}"), 1, "model.stall.first_byte",
			"3m0s is above the default timeout 2m0s, which cuts the request first: lower first_byte or raise the timeout"},
		{"above the model's timeout", model(", timeout: 20s, stall: {idle: 30s}"), 1, "model.stall.idle",
			"30s is above model.timeout 20s, which cuts the request first: lower idle or raise the timeout"},
		{"above a short timeout", model(", timeout: 10s, stall: {first_byte: 11s}"), 1, "model.stall.first_byte",
			"11s is above model.timeout 10s"},
		{"an agent's zero", agent("", "stall: {first_byte: 0s}"), 2, "agents[0].model.stall.first_byte", firstZero + "0s"},
		{"an agent's above its own timeout", agent("", "timeout: 40s, stall: {first_byte: 50s}"), 2, "agents[0].model.stall.first_byte",
			`50s is above agents[0].model.timeout 40s of agent "x"'s model requests, which cuts the request first`},
		{"the file's above an agent's timeout", agent(", stall: {first_byte: 50s}", "timeout: 40s"), 1, "model.stall.first_byte",
			`50s is above agents[0].model.timeout 40s of agent "x"'s model requests`},
		{"an agent's above the file's timeout", agent(", timeout: 40s", "stall: {idle: 45s}"), 2, "agents[0].model.stall.idle",
			`45s is above model.timeout 40s of agent "x"'s model requests`},
		{"a fallback's zero", model(", fallbacks: [{name: n, stall: {idle: 0s}}]"), 1, "model.fallbacks[0].stall.idle", idleZero + "0s"},
		{"a fallback's above the model's timeout", model(", timeout: 1m, fallbacks: [{name: n, stall: {first_byte: 90s}}]"), 1, "model.fallbacks[0].stall.first_byte",
			"1m30s is above model.timeout 1m0s, which cuts the request first"},
		{"the file's fallback under an agent's timeout", agent(", fallbacks: [{name: n, stall: {idle: 45s}}]", "timeout: 40s"), 1, "model.fallbacks[0].stall.idle",
			`45s is above agents[0].model.timeout 40s of agent "x"'s model requests`},
		{"an agent's fallback", agent("", "fallbacks: [{name: n, stall: {first_byte: -1s}}]"), 2, "agents[0].model.fallbacks[0].stall.first_byte", firstZero + "-1s"},
	})
}

// What is not refused, and the deadlines a request then reads: left out,
// the defaults (a default above the timeout is never told: the timeout
// cuts first, as without a stall); a block leaving a key out keeps that
// key's default; a deadline equal to the timeout (the stall off, in
// effect); an agent's block over the file's; a fallback's over its
// model's, which its other fallbacks keep.
func TestStallAccepted(t *testing.T) {
	def := Stall{FirstByte: DefaultStallFirstByte, Idle: DefaultStallIdle}
	s := func(first, idle time.Duration) Stall { return Stall{FirstByte: Duration(first), Idle: Duration(idle)} }
	for _, tc := range []struct {
		name  string
		yaml  string
		model Stall   // agent x's model
		falls []Stall // its fallbacks
	}{
		{"no block", model(""), def, nil},
		{"a short timeout, no block", model(", timeout: 10s"), def, nil},
		{"an empty block", model(", stall: {}"), def, nil},
		{"null keys", model(", stall: {first_byte: null, idle: null}"), def, nil},
		{"first_byte only", model(", stall: {first_byte: 5s}"), s(5*time.Second, 30*time.Second), nil},
		{"equal to the timeout", model(", timeout: 90s, stall: {first_byte: 90s, idle: 90s}"), s(90*time.Second, 90*time.Second), nil},
		{"an agent's over the file's", y(
			"model: {base_url: http://m/v1, name: m, stall: {first_byte: 5s}}",
			"agents: [{name: x, model: {stall: {idle: 2s}}}]"), s(60*time.Second, 2*time.Second), nil},
		{"an agent without a block keeps the file's", y(
			"model: {base_url: http://m/v1, name: m, stall: {idle: 7s}}",
			"agents: [{name: x, model: {name: other}}]"), s(60*time.Second, 7*time.Second), nil},
		{"a fallback's over the model's", y(
			"model: {base_url: http://m/v1, name: m, stall: {idle: 7s}, fallbacks: [{name: slow, stall: {first_byte: 100s}}, {name: n}]}",
			"agents: [{name: x}]"), s(60*time.Second, 7*time.Second), []Stall{s(100*time.Second, 30*time.Second), s(60*time.Second, 7*time.Second)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parse(tc.yaml)
			require.NoError(t, err)
			m, err := f.ModelFor("x", env())
			require.NoError(t, err)
			require.Equal(t, tc.model, m.StallBounds())
			for j, want := range tc.falls {
				require.Equal(t, want, m.At(j+1).StallBounds(), "fallback %d", j)
			}
		})
	}
}

// model is a file whose model line (line 1) holds more, with agent x.
func model(more string) string {
	return y("model: {base_url: http://m/v1, name: m"+more+"}", "agents: [{name: x}]")
}

// A stall the file's model and an agent without a timeout of its own
// share is told once.
func TestStallAboveTimeoutToldOnce(t *testing.T) {
	_, err := parse(y(
		"model: {base_url: http://m/v1, name: m, timeout: 30s, stall: {idle: 40s}}",
		"agents: [{name: x, model: {name: other}}, {name: y}]"))
	require.EqualError(t, err, "agents.yaml:1: model.stall.idle: 40s is above model.timeout 30s, which cuts the request first: lower idle or raise the timeout")
}
