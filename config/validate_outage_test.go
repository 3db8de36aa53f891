package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestValidateOutage(t *testing.T) {
	tool := func(outage string) string {
		return withTool("  - name: book", "    http: {url: http://t/book}", "    outage: "+outage)
	}
	pol := func(lines ...string) string {
		return withAgent(append([]string{"  - name: x", "    policies:"}, lines...)...)
	}
	// calls is a file whose tool a (line 3) waits out 2h, b (line 4) is
	// a's fallback waiting 3h, and agent x calls what is given.
	calls := func(tools string, more ...string) string {
		return y(append([]string{
			"model: {base_url: http://m/v1, name: m}",
			"tools:",
			"  - {name: a, http: {url: http://t/a}, outage: {max_wait: 2h}, fallback: b}",
			"  - {name: b, http: {url: http://t/b}, outage: {max_wait: 3h}}",
			"  - {name: c, http: {url: http://t/c}}",
			"agents:",
			"  - name: x",
			"    tools: " + tools,
		}, more...)...)
	}
	const toolZero = "must be > 0 (leave it out for the agent's policies.outage, else 30m0s), got "
	const agentZero = "must be > 0 (leave it out for the default, 30m0s), got "
	runProblems(t, []problemCase{
		{"a tool's zero", tool("{max_wait: 0s}"), 5, "tools[0].outage.max_wait", toolZero + "0s"},
		{"a tool's zero without unit", tool("{max_wait: 0}"), 5, "tools[0].outage.max_wait", toolZero + "0s"},
		{"a tool's negative", tool("{max_wait: -1m}"), 5, "tools[0].outage.max_wait", toolZero + "-1m0s"},
		{"an agent's zero", pol("      outage: {max_wait: 0s}"), 8, "agents[0].policies.outage.max_wait", agentZero + "0s"},
		{"an agent's negative", pol("      outage:", "        max_wait: -30s"), 9, "agents[0].policies.outage.max_wait", agentZero + "-30s"},
		{"not a duration", pol("      outage: {max_wait: soon}"), 8, "agents[0].policies.outage.max_wait", `invalid duration "soon"`},
		{"an agent's above its wall_time", pol("      budget: {wall_time: 1h}", "      outage: {max_wait: 2h}"), 9, "agents[0].policies.outage.max_wait",
			`2h0m0s is above agents[0].policies.budget.wall_time 1h0m0s, the time limit of agent "x"'s runs: lower max_wait or raise wall_time`},
		{"an agent's above the file's wall_time", withAgent("  - name: x", "    policies: {outage: {max_wait: 2h}}", "budget: {wall_time: 90m}"), 7, "agents[0].policies.outage.max_wait",
			`2h0m0s is above budget.wall_time 1h30m0s, the time limit of agent "x"'s runs: lower max_wait or raise wall_time`},
		{"a tool's above the wall_time of an agent calling it", calls("[a]", "    policies: {budget: {wall_time: 150m}}"), 4, "tools[1].outage.max_wait",
			`3h0m0s is above agents[0].policies.budget.wall_time 2h30m0s, the time limit of agent "x"'s runs: lower max_wait or raise wall_time`},
		{"a tool's above the file's wall_time", calls("[a]", "budget: {wall_time: 1h}"), 3, "tools[0].outage.max_wait",
			`2h0m0s is above budget.wall_time 1h0m0s, the time limit of agent "x"'s runs: lower max_wait or raise wall_time`},
	})
}

// What is not refused: a block without max_wait keeps the default (the
// agent's for a tool, else 30m), as other blocks' left-out keys do; a
// max_wait equal to the wall_time; a tool no agent under the wall_time
// calls; an agent whose own budget sets no wall_time over the file's.
func TestOutageAccepted(t *testing.T) {
	for _, tc := range []struct {
		name       string
		yaml       string
		toolWaits  time.Duration
		agentWaits *Outage
	}{
		{"no blocks", withAgent("  - name: x", "    tools: [a]"), DefaultOutageWait.D(), &Outage{MaxWait: DefaultOutageWait}},
		{"empty blocks", y(
			"model: {base_url: http://m/v1, name: m}",
			"tools: [{name: a, http: {url: http://t/a}, outage: {}}]",
			"agents: [{name: x, tools: [a], policies: {outage: {}}}]"), DefaultOutageWait.D(), &Outage{MaxWait: DefaultOutageWait}},
		{"null max_wait", y(
			"model: {base_url: http://m/v1, name: m}",
			"tools: [{name: a, http: {url: http://t/a}, outage: {max_wait: null}}]",
			"agents: [{name: x, tools: [a], policies: {outage: {max_wait: 5m}}}]"), 5 * time.Minute, &Outage{MaxWait: Duration(5 * time.Minute)}},
		{"equal to the wall_time", y(
			"model: {base_url: http://m/v1, name: m}",
			"tools: [{name: a, http: {url: http://t/a}, outage: {max_wait: 1h}}]",
			"agents: [{name: x, tools: [a], policies: {budget: {wall_time: 1h}, outage: {max_wait: 1h}}}]"), time.Hour, &Outage{MaxWait: Duration(time.Hour)}},
		{"a tool the agent under the wall_time does not call", y(
			"model: {base_url: http://m/v1, name: m}",
			"tools: [{name: a, http: {url: http://t/a}}, {name: b, http: {url: http://t/b}, outage: {max_wait: 2h}}]",
			"agents: [{name: x, tools: [a], policies: {budget: {wall_time: 1h}}}, {name: y, tools: [b]}]"), DefaultOutageWait.D(), &Outage{MaxWait: DefaultOutageWait}},
		{"an agent's budget without wall_time over the file's", y(
			"model: {base_url: http://m/v1, name: m}",
			"tools: [{name: a, http: {url: http://t/a}, outage: {max_wait: 2h}}]",
			"agents: [{name: x, tools: [a], policies: {budget: {tool_calls: 9}}}]",
			"budget: {wall_time: 1h}"), 2 * time.Hour, &Outage{MaxWait: DefaultOutageWait}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parse(tc.yaml)
			require.NoError(t, err)
			r, err := f.Resolve("x", env())
			require.NoError(t, err)
			a, ok := r.Tool("a")
			require.True(t, ok)
			require.Equal(t, tc.toolWaits, r.Agent.Policies.OutageWait(a))
			require.Equal(t, tc.agentWaits, r.Agent.Policies.Outage)
		})
	}
}

// A tool that agents share under the file's wall_time is told once, and
// each problem names its field and line.
func TestOutageAboveWallTimeToldOnce(t *testing.T) {
	_, err := parse(y(
		"model: {base_url: http://m/v1, name: m}",
		"tools: [{name: a, http: {url: http://t/a}, outage: {max_wait: 2h}}]",
		"agents: [{name: x, tools: [a]}, {name: y, tools: [a], policies: {outage: {max_wait: 0s}}}]",
		"budget: {wall_time: 1h}"))
	require.EqualError(t, err, "agents.yaml:3: agents[1].policies.outage.max_wait: must be > 0 (leave it out for the default, 30m0s), got 0s\n"+
		"agents.yaml:2: tools[0].outage.max_wait: 2h0m0s is above budget.wall_time 1h0m0s, the time limit of agent \"x\"'s runs: lower max_wait or raise wall_time")
}

// A model's outage.max_wait (the model and every fallback down) is
// refused as the others are, and a run waits out its model for the
// agent's model block's, else the file's model's, else the agent's
// policies.outage, else the default.
func TestModelOutage(t *testing.T) {
	const modelZero = "must be > 0 (leave it out for the agent's policies.outage, else 30m0s), got "
	runProblems(t, []problemCase{
		{"the file's model zero", y(
			"model: {base_url: http://m/v1, name: m, outage: {max_wait: 0s}}",
			"agents: [{name: x}]"), 1, "model.outage.max_wait", modelZero + "0s"},
		{"an agent's model negative", y(
			"model: {base_url: http://m/v1, name: m}",
			"agents: [{name: x, model: {outage: {max_wait: -1m}}}]"), 2, "agents[0].model.outage.max_wait",
			"must be > 0 (leave it out for the file's model.outage, else the agent's policies.outage), got -1m0s"},
		{"the file's model above an agent's wall_time", y(
			"model: {base_url: http://m/v1, name: m, outage: {max_wait: 2h}}",
			"agents: [{name: x, policies: {budget: {wall_time: 1h}}}]"), 1, "model.outage.max_wait",
			`2h0m0s is above agents[0].policies.budget.wall_time 1h0m0s, the time limit of agent "x"'s runs: lower max_wait or raise wall_time`},
		{"an agent's model above its wall_time", y(
			"model: {base_url: http://m/v1, name: m}",
			"agents: [{name: x, model: {outage: {max_wait: 2h}}, policies: {budget: {wall_time: 1h}}}]"), 2, "agents[0].model.outage.max_wait",
			`2h0m0s is above agents[0].policies.budget.wall_time 1h0m0s, the time limit of agent "x"'s runs: lower max_wait or raise wall_time`},
	})
	for _, tc := range []struct {
		name string
		yaml string
		want time.Duration
	}{
		{"no blocks", y("model: {base_url: http://m/v1, name: m}", "agents: [{name: x}]"), DefaultOutageWait.D()},
		{"the agent's policies", y("model: {base_url: http://m/v1, name: m}", "agents: [{name: x, policies: {outage: {max_wait: 7m}}}]"), 7 * time.Minute},
		{"the file's model", y("model: {base_url: http://m/v1, name: m, outage: {max_wait: 9m}}",
			"agents: [{name: x, policies: {outage: {max_wait: 7m}}}]"), 9 * time.Minute},
		{"the agent's model", y("model: {base_url: http://m/v1, name: m, outage: {max_wait: 9m}}",
			"agents: [{name: x, model: {outage: {max_wait: 11m}}}]"), 11 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parse(tc.yaml)
			require.NoError(t, err)
			r, err := f.Resolve("x", env())
			require.NoError(t, err)
			require.Equal(t, tc.want, r.Agent.Policies.ModelOutageWait(r.Model))
		})
	}
}
