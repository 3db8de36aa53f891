package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// withNotify is a valid file of agent x followed by a notify: block
// whose items start at line 5.
func withNotify(hooks ...string) string {
	return y(append([]string{
		"model: {base_url: http://m/v1, name: m}",
		"agents:",
		"  - name: x",
		"notify:",
	}, hooks...)...)
}

func TestValidateNotify(t *testing.T) {
	runProblems(t, []problemCase{
		{"name missing", withNotify("  - {url: http://h/a}"), 5, "notify[0].name", "missing: every webhook needs a name"},
		{"name twice", withNotify("  - {name: pager, url: http://h/a}", "  - {name: pager, url: http://h/b}"), 6, "notify[1].name",
			`duplicate webhook name "pager" (also notify[0])`},
		{"url missing", withNotify("  - {name: pager}"), 5, "notify[0].url", "missing: the URL the webhook is called at"},
		{"url not http", withNotify("  - {name: pager, url: ftp://h/a}"), 5, "notify[0].url", "want an absolute http:// or https:// URL"},
		{"url without host", withNotify("  - {name: pager, url: 'http:///a'}"), 5, "notify[0].url", "no host"},
		{"unknown event", withNotify("  - {name: pager, url: http://h/a, on: [waiting, late]}"), 5, "notify[0].on[1]",
			`invalid event "late" (want one of waiting, half_timeout, timed_out)`},
		{"event twice", withNotify("  - {name: pager, url: http://h/a, on: [timed_out, timed_out]}"), 5, "notify[0].on[1]", `event "timed_out" is listed twice`},
		{"bad header name", withNotify("  - {name: pager, url: http://h/a, headers: {'a b': x}}"), 5, `notify[0].headers["a b"]`, "invalid header name"},
		{"engine header", withNotify("  - {name: pager, url: http://h/a, headers: {content-type: text/plain}}"), 5, "notify[0].headers.content-type",
			"header Content-Type is set by unstuck"},
		{"header variable unset", withNotify("  - {name: pager, url: http://h/a, headers: {Authorization: 'Bearer ${PAGER_TOKEN}'}}"), 5,
			"notify[0].headers.Authorization", "environment variable PAGER_TOKEN is not set"},
		{"unknown key", withNotify("  - {name: pager, url: http://h/a, when: always}"), 5, "notify[0].when", `unknown field "when"`},
	})
}

// A webhook's headers keep their ${VAR} as written (the activity expands
// them when it calls), and a run keeps only its name and events: no URL,
// no header.
func TestNotifyResolved(t *testing.T) {
	opts := testOpts()
	opts.Getenv = env("PAGER_TOKEN", "s3cret")
	f, err := Parse("agents.yaml", []byte(withNotify(
		`  - {name: pager, url: "https://hooks.example/unstuck", headers: {Authorization: "Bearer ${PAGER_TOKEN}"}, on: [waiting, timed_out]}`,
		"  - {name: all, url: http://h/all}",
	)), opts)
	require.NoError(t, err)
	hook, ok := f.Webhook("pager")
	require.True(t, ok)
	require.Equal(t, "Bearer ${PAGER_TOKEN}", hook.Headers["Authorization"])
	require.True(t, hook.Listens(NotifyWaiting))
	require.False(t, hook.Listens(NotifyHalfTimeout))
	all, _ := f.Webhook("all")
	for _, e := range NotifyEvents {
		require.True(t, all.Listens(e), "a webhook without on listens for %s", e)
	}
	_, ok = f.Webhook("nobody")
	require.False(t, ok)

	r, err := f.Resolve("x", env())
	require.NoError(t, err)
	kept := r.WithoutEndpoints()
	require.Equal(t, []Webhook{{Name: "pager", On: []string{NotifyWaiting, NotifyTimedOut}}, {Name: "all"}}, kept.Notify)
	js := string(mustMarshal(t, kept))
	for _, secret := range []string{"hooks.example", "PAGER_TOKEN", "s3cret", "http://h/all"} {
		require.False(t, strings.Contains(js, secret), "the run's spec holds %q: %s", secret, js)
	}
}

// A file without notify: gives a run none, and its spec's JSON is as
// before (no notify key).
func TestNoNotifyResolved(t *testing.T) {
	f, err := parse(y("model: {base_url: http://m/v1, name: m}", "agents:", "  - name: x"))
	require.NoError(t, err)
	r, err := f.Resolve("x", env())
	require.NoError(t, err)
	require.Nil(t, r.Notify)
	require.NotContains(t, string(mustMarshal(t, r.WithoutEndpoints())), "notify")
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
