package config

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// env is a Getenv over fixed pairs, so tests never see the real
// environment.
func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// testOpts knows the builtins "echo" and "clock" and an empty environment.
func testOpts() Options {
	return Options{
		KnownBuiltin: func(n string) bool { return n == "echo" || n == "clock" },
		Getenv:       env(),
	}
}

func parse(y string) (*File, error) {
	return Parse("agents.yaml", []byte(y), testOpts())
}

// y joins lines, so that a case's line numbers can be read off its index.
func y(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// withTool is a valid file around one tool whose lines start at line 3.
func withTool(tool ...string) string {
	ls := []string{"model: {base_url: http://m/v1, name: m}", "tools:"}
	ls = append(ls, tool...)
	ls = append(ls, "  - {name: other, http: {url: http://t/other}}", "agents:", "  - name: x", "    tools: [other]")
	return y(ls...)
}

// withAgent is a valid file of tools a and b around one agent whose lines
// start at line 6.
func withAgent(agent ...string) string {
	ls := []string{
		"model: {base_url: http://m/v1, name: m}",
		"tools:",
		"  - {name: a, http: {url: http://t/a}}",
		"  - {name: b, http: {url: http://t/b}}",
		"agents:",
	}
	return y(append(ls, agent...)...)
}

// withGraph is withAgent with agent x of tools [a] whose graph lines
// start at line 9 (indent them by six spaces).
func withGraph(graph ...string) string {
	return withAgent(append([]string{"  - name: x", "    tools: [a]", "    graph:"}, graph...)...)
}

// requireProblem asserts that err holds a problem at path whose reason
// contains reason, on line when line is not 0, and that it prints as
// "agents.yaml:line: path: reason".
func requireProblem(t *testing.T, err error, line int, path, reason string) {
	t.Helper()
	require.Error(t, err)
	for _, p := range Problems(err) {
		if p.Path == path && strings.Contains(p.Reason, reason) {
			require.Equal(t, "agents.yaml", p.File, "problem %v", p)
			if line != 0 {
				require.Equal(t, line, p.Line, "problem %v", p)
				require.Contains(t, err.Error(), p.File+":"+strconv.Itoa(line)+": "+path+": ")
			}
			return
		}
	}
	require.Failf(t, "problem not found", "want %s: ...%s...\ngot:\n%v", path, reason, err)
}
