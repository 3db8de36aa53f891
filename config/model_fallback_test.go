package config

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateModelFallbacks(t *testing.T) {
	file := func(model string, agent ...string) string {
		return y(append([]string{model, "tools:", "  - {name: a, http: {url: http://t/a}}", "agents:"}, agent...)...)
	}
	runProblems(t, []problemCase{
		{"no name", file("model: {base_url: http://m/v1, name: m, fallbacks: [{base_url: http://n/v1}]}", "  - {name: x}"), 1, "model.fallbacks[0].name", "missing: the model to turn to"},
		{"itself", file("model: {base_url: http://m/v1, name: m, fallbacks: [{name: m}]}", "  - {name: x}"), 1, "model.fallbacks[0]", "names the model itself (m at the same endpoint)"},
		{"twice", file("model: {base_url: http://m/v1, name: m, fallbacks: [{name: n}, {name: n, base_url: http://m/v1}]}", "  - {name: x}"), 1, "model.fallbacks[1]", "repeats fallbacks[0] (n at the same endpoint)"},
		{"bad endpoint", file("model: {base_url: http://m/v1, name: m, fallbacks: [{name: n, base_url: 'ftp://n'}]}", "  - {name: x}"), 1, "model.fallbacks[0].base_url", "want an absolute http:// or https:// URL"},
		{"an agent's own, itself", file("model: {base_url: http://m/v1, name: m}", "  - name: x", "    model: {name: k, fallbacks: [{name: k}]}"), 6, "agents[0].model.fallbacks[0]", "names the model itself (k at the same endpoint)"},
	})
}

func TestAFallbackTakesWhatItDoesNotName(t *testing.T) {
	m := Model{BaseURL: "http://primary/v1", APIKeyEnv: "P_KEY", Name: "big", ContextWindow: 8000, Timeout: Duration(5),
		Fallbacks: []ModelFallback{{Name: "small"}, {Name: "other", BaseURL: "http://other/v1", APIKeyEnv: "O_KEY"}}}
	require.Equal(t, m, m.At(0))
	one := m.At(1)
	require.Equal(t, []any{"small", "http://primary/v1", "P_KEY", 0, Duration(5)}, []any{one.Name, one.BaseURL, one.APIKeyEnv, one.ContextWindow, one.Timeout})
	require.Nil(t, one.Fallbacks)
	two := m.At(2)
	require.Equal(t, []any{"other", "http://other/v1", "O_KEY", true}, []any{two.Name, two.BaseURL, two.APIKeyEnv, two.OwnEndpoint})
	require.Equal(t, m, m.At(3), "out of the list: the model itself")
}

func TestModelNamesAreTheModelThenItsFallbacksEachOnce(t *testing.T) {
	m := Model{BaseURL: "http://primary/v1", Name: "big",
		Fallbacks: []ModelFallback{{Name: "small"}, {Name: "big", BaseURL: "http://other/v1"}, {Name: "other"}}}
	require.Equal(t, []string{"big", "small", "other"}, m.Names(), "the same model at another endpoint is one name")
	require.Equal(t, []string{"big"}, Model{Name: "big"}.Names())
}

func TestARunKeepsTheFallbacksNamesAndProvidersOnly(t *testing.T) {
	f, err := parse(y("model: {base_url: 'http://user:secret@primary:8080/v1', name: big, fallbacks: [{name: small}, {name: other, base_url: 'https://other.example/v1?key=s', api_key_env: O_KEY}]}",
		"tools:", "  - {name: a, http: {url: http://t/a}}", "agents:", "  - {name: x}"))
	require.NoError(t, err)
	r, err := f.Resolve("x", nil)
	require.NoError(t, err)
	kept := r.WithoutEndpoints().Model
	primary, other := providerOf("http://primary:8080"), providerOf("https://other.example")
	require.NotEqual(t, primary, other)
	require.Equal(t, primary, kept.Provider)
	require.Equal(t, []ModelFallback{{Name: "small", Provider: primary}, {Name: "other", Provider: other}}, kept.Fallbacks)
	raw, _ := json.Marshal(r.WithoutEndpoints())
	for _, secret := range []string{"primary", "secret", "other.example", "O_KEY"} {
		require.NotContains(t, string(raw), secret)
	}
}
