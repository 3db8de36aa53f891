package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func resolveFile(t *testing.T) *File {
	t.Helper()
	f, err := parse(y(
		"model: {base_url: http://default/v1, name: small, api_key_env: KEY}",
		"tools:",
		"  - {name: search, http: {url: http://t/search}}",
		"  - {name: book, http: {url: http://t/book}, fallback: book_backup}",
		"  - {name: book_backup, http: {url: http://t/book2}, fallback: book_last}",
		"  - {name: book_last, builtin: echo}",
		"  - {name: unused, builtin: echo}",
		"agents:",
		"  - name: travel",
		"    tools: [search, book]",
		"  - name: big",
		"    model: {name: large}",
		"  - name: remote",
		"    model: {base_url: http://remote/v1, api_key_env: REMOTE_KEY, name: other}"))
	require.NoError(t, err)
	return f
}

func TestResolve(t *testing.T) {
	f := resolveFile(t)
	r, err := f.Resolve("travel", env())
	require.NoError(t, err)
	require.Equal(t, "travel", r.Agent.Name)
	require.Equal(t, Model{BaseURL: "http://default/v1", APIKeyEnv: "KEY", Name: "small"}, r.Model)

	// The agent's tools and, transitively, their fallbacks, by name.
	var names []string
	for _, tl := range r.Tools {
		names = append(names, tl.Name)
	}
	require.Equal(t, []string{"book", "book_backup", "book_last", "search"}, names)

	tl, ok := r.Tool("book_backup")
	require.True(t, ok)
	require.Equal(t, "book_last", tl.Fallback)
	_, ok = r.Tool("unused")
	require.False(t, ok)
}

func TestResolveModelOverride(t *testing.T) {
	f := resolveFile(t)
	r, err := f.Resolve("big", env())
	require.NoError(t, err)
	require.Equal(t, Model{BaseURL: "http://default/v1", APIKeyEnv: "KEY", Name: "large"}, r.Model, "the agent's fields over the file's")
	require.Empty(t, r.Tools)

	r, err = f.Resolve("remote", env())
	require.NoError(t, err)
	require.Equal(t, Model{BaseURL: "http://remote/v1", APIKeyEnv: "REMOTE_KEY", Name: "other", OwnEndpoint: true}, r.Model)
}

func TestResolveOpenAIBaseURL(t *testing.T) {
	f := resolveFile(t)
	r, err := f.Resolve("remote", env("OPENAI_BASE_URL", "http://override/v1"))
	require.NoError(t, err)
	require.Equal(t, "http://remote/v1", r.Model.BaseURL, "an agent's own base_url is not overridden")
	require.True(t, r.Model.OwnEndpoint)
	require.Equal(t, "other", r.Model.Name)

	r, err = f.Resolve("travel", env("OPENAI_BASE_URL", "http://override/v1"))
	require.NoError(t, err)
	require.Equal(t, "http://override/v1", r.Model.BaseURL, "OPENAI_BASE_URL overrides the file's model")

	r, err = f.Resolve("travel", env("OPENAI_BASE_URL", ""))
	require.NoError(t, err)
	require.Equal(t, "http://default/v1", r.Model.BaseURL, "an empty OPENAI_BASE_URL is ignored")
}

func TestResolveUnknownAgent(t *testing.T) {
	f := resolveFile(t)
	_, err := f.Resolve("travle", env())
	require.EqualError(t, err, `unknown agent "travle" (known: big, remote, travel)`)
}

func TestResolveDoesNotAliasAgent(t *testing.T) {
	f := resolveFile(t)
	r, err := f.Resolve("travel", nil)
	require.NoError(t, err)
	r.Agent.Name = "changed"
	require.Equal(t, "travel", f.Agents[0].Name)
}

func TestModelAPIKey(t *testing.T) {
	m := Model{APIKeyEnv: "KEY"}
	require.Equal(t, "k1", m.APIKey(env("KEY", "k1")))
	require.Equal(t, "k2", m.APIKey(env("KEY", "k1", "OPENAI_API_KEY", "k2")), "OPENAI_API_KEY overrides the config")
	require.Equal(t, "k1", m.APIKey(env("KEY", "k1", "OPENAI_API_KEY", "")))
	own := Model{APIKeyEnv: "KEY", OwnEndpoint: true}
	require.Equal(t, "k1", own.APIKey(env("KEY", "k1", "OPENAI_API_KEY", "k2")), "OPENAI_API_KEY never goes to an agent's own endpoint")
	require.Equal(t, "", Model{}.APIKey(env("KEY", "k1")))
}

// The model activity resolves an agent's model by name at call time: the
// same answer Resolve gives, the file's model for an empty name (requests
// of earlier versions), and an error for an agent that is gone.
func TestModelForMatchesResolve(t *testing.T) {
	f := resolveFile(t)
	for _, getenv := range []func(string) (string, bool){env(), env("OPENAI_BASE_URL", "http://override/v1")} {
		for _, name := range []string{"travel", "big", "remote"} {
			r, err := f.Resolve(name, getenv)
			require.NoError(t, err)
			m, err := f.ModelFor(name, getenv)
			require.NoError(t, err)
			require.Equal(t, r.Model, m, name)
		}
	}
	m, err := f.ModelFor("", env())
	require.NoError(t, err)
	require.Equal(t, "small", m.Name)
	_, err = f.ModelFor("gone", env())
	require.ErrorContains(t, err, `agent "gone" is no longer in this worker's config`)
}

// What a run keeps holds no address and no key variable's name, and
// leaves the file's own values alone.
func TestWithoutEndpoints(t *testing.T) {
	f := resolveFile(t)
	r, err := f.Resolve("remote", env())
	require.NoError(t, err)
	r.Tools = append(r.Tools, Tool{Name: "h", HTTP: &HTTPTool{Method: "POST", URL: "http://secret/x", Timeout: Duration(7),
		Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}})
	kept := r.WithoutEndpoints()
	require.Equal(t, Model{Name: "other", Provider: providerOf(r.Model.BaseURL)}, kept.Model)
	require.Equal(t, &Model{Name: "other"}, kept.Agent.Model)
	h, ok := kept.Tool("h")
	require.True(t, ok)
	require.Equal(t, &HTTPTool{Timeout: Duration(7)}, h.HTTP)
	require.Nil(t, h.HTTP.Headers, "headers, even unexpanded, are the worker's business")
	require.Equal(t, "http://secret/x", r.Tools[len(r.Tools)-1].HTTP.URL, "the original is untouched")
	require.Equal(t, "http://remote/v1", f.Agents[2].Model.BaseURL)
}

// The model is offered the agent's own tools; fallbacks are resolved (a
// breaker may need them) but never offered.
func TestAgentToolIsOnlyTheAgentsOwn(t *testing.T) {
	f := resolveFile(t)
	r, err := f.Resolve("travel", env())
	require.NoError(t, err)
	_, ok := r.AgentTool("book")
	require.True(t, ok)
	_, ok = r.Tool("book_backup")
	require.True(t, ok, "resolved for the breaker")
	_, ok = r.AgentTool("book_backup")
	require.False(t, ok, "never offered to the model")
}

// A spec carried from before limits existed has none: the defaults apply.
func TestLimitsDefaultWhereASpecHasNone(t *testing.T) {
	require.Equal(t, DefaultCallsPerReply, Limits{}.PerReply())
	require.Equal(t, DefaultCallsInFlight, Limits{}.InFlight())
	require.Equal(t, 3, Limits{CallsPerReply: 3, CallsInFlight: 2}.PerReply())
	require.Equal(t, 2, Limits{CallsPerReply: 3, CallsInFlight: 2}.InFlight())
}
