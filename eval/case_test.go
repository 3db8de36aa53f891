package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

const flightCase = `
agent: travel
task: Book NYC to LAX on 2024-01-15
input: {passengers: 1}
expect: {output: {booked: true}, match: subset}
tools:
  - tool: search_flights
    args: {from: NYC, to: LAX, price: 1.50}
    error: {class: transient, message: "503 from the airline"}
  - tool: search_flights
    args: {"to": "LAX", "from": "NYC", "price": 1.5}
    result: {flights: [{id: F1}]}
recorded: {status: completed, steps: 3, model_requests: 3, tool_calls: 2, input_tokens: 900, output_tokens: 60, loops: 0, repairs: 1, rungs: [backoff]}
`

// A case file reads as written, is named after its file, and writes back
// to what it read.
func TestCaseReadsAndWritesBack(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(writeFile(t, dir, "book-nyc.yaml", flightCase))
	require.NoError(t, err)
	require.Equal(t, "book-nyc", c.Name)
	require.Equal(t, MatchSubset, c.Expect.Match)
	require.Len(t, c.Tools, 2)
	require.Equal(t, []string{"backoff"}, c.Recorded.Rungs)

	out := t.TempDir()
	path, err := Write(out, c)
	require.NoError(t, err)
	again, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, path, again.Path, "a case knows its file")
	again.Path = c.Path
	require.Equal(t, c, again)
}

// A case that cannot be run is refused with its file and field.
func TestCaseRefusedNamesTheFileAndField(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no agent", "task: x\ntools: []\n", "agent: missing"},
		{"no task", "agent: a\ntask: ' '\ntools: []\n", "task: missing"},
		{"unknown field", "agent: a\ntask: x\ntols: []\n", "field tols not found"},
		{"tool without name", "agent: a\ntask: x\ntools: [{args: {}}]\n", "tools[0].tool: missing"},
		{"result and error", "agent: a\ntask: x\ntools: [{tool: t, args: {}, result: 1, error: {class: fatal, message: m}}]\n", "tools[0]: a result and an error"},
		{"unknown match", "agent: a\ntask: x\nexpect: {output: 1, match: fuzzy}\ntools: []\n", `expect.match: "fuzzy"`},
		{"judge without its agent", "agent: a\ntask: x\nexpect: {match: judge}\ntools: []\n", "expect.judge: missing"},
		{"judge with another match", "agent: a\ntask: x\nexpect: {output: 1, match: subset, judge: grader}\ntools: []\n", "expect.judge: grader judges only with match judge, not subset"},
		{"not YAML", "agent: [\n", "c.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Load(writeFile(t, dir, "c.yaml", tc.text))
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, filepath.Join(dir, "c.yaml"))
		})
	}
}

// A directory's cases are read in name order; two of one name, or none,
// are refused.
func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "b.yaml", flightCase)
	writeFile(t, dir, "a.yaml", flightCase)
	writeFile(t, dir, "notes.txt", "not a case")
	cases, err := LoadDir(dir)
	require.NoError(t, err)
	require.Equal(t, "a", cases[0].Name)
	require.Equal(t, "b", cases[1].Name)

	writeFile(t, dir, "c.yaml", "name: a\n"+flightCase)
	_, err = LoadDir(dir)
	require.ErrorContains(t, err, `name "a" is the name of`)

	_, err = LoadDir(t.TempDir())
	require.ErrorContains(t, err, "no case files")
}

// A call is answered by the recorded call of the same tool and arguments,
// whatever their key order and number spelling; the same call again gets
// the next recorded answer, then the last; a call not recorded, none.
func TestReplayAnswersByToolAndArguments(t *testing.T) {
	c, err := Load(writeFile(t, t.TempDir(), "c.yaml", flightCase))
	require.NoError(t, err)
	r := NewReplay(c)
	first, ok := r.Answer("search_flights", json.RawMessage(`{"price": 1.50, "to": "LAX", "from": "NYC"}`))
	require.True(t, ok)
	require.Equal(t, "transient", first.Error.Class)
	second, ok := r.Answer("search_flights", json.RawMessage(`{"from":"NYC","to":"LAX","price":1.5}`))
	require.True(t, ok)
	require.Nil(t, second.Error)
	third, _ := r.Answer("search_flights", json.RawMessage(`{"from":"NYC","to":"LAX","price":1.5}`))
	require.Equal(t, second, third, "the last answer from then on")
	_, ok = r.Answer("search_flights", json.RawMessage(`{"from":"NYC","to":"SFO","price":1.5}`))
	require.False(t, ok)
	_, ok = r.Answer("book", json.RawMessage(`{"from":"NYC","to":"LAX","price":1.5}`))
	require.False(t, ok)
}

// A secret anywhere in a case is found, and its field named.
func TestFindSecretNamesTheField(t *testing.T) {
	c, err := Load(writeFile(t, t.TempDir(), "c.yaml", flightCase))
	require.NoError(t, err)
	require.Empty(t, FindSecret(c, []string{"sk-live-0123456789"}))
	c.Tools[1].Result = map[string]any{"flights": []any{map[string]any{"id": "F1", "auth": "Bearer sk-live-0123456789"}}}
	require.Equal(t, "tools[1].result.flights[0].auth", FindSecret(c, []string{"sk-live-0123456789", "x"}))
	require.Empty(t, FindSecret(c, []string{"F1"}), "values shorter than 8 bytes are not taken for secrets")

	env := EnvSecrets([]string{"OPENAI_API_KEY=sk-1", "HOME=/root", "AIRLINE_TOKEN=t-123", "EMPTY_SECRET="})
	require.Equal(t, []string{"sk-1", "t-123"}, env)
}
