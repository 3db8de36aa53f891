package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// At is the model a request goes to at place i of the agent's list: 0 the
// model itself, i its i-th fallback, which takes the model's endpoint,
// key, stall, retry, timeout and window where it names none of its own.
func (m Model) At(i int) Model {
	if i <= 0 || i > len(m.Fallbacks) {
		return m
	}
	fb := m.Fallbacks[i-1]
	out := m
	out.Fallbacks = nil
	out.Name = fb.Name
	if fb.BaseURL != "" {
		out.BaseURL, out.OwnEndpoint = fb.BaseURL, true
	}
	if fb.APIKeyEnv != "" {
		out.APIKeyEnv = fb.APIKeyEnv
	}
	if fb.Stall != nil {
		out.Stall = fb.Stall
	}
	if fb.Name != m.Name {
		// Another model's window is not this one's.
		out.ContextWindow, out.MaxOutputTokens = 0, 0
	}
	return out
}

// Names are the names of the models a request may go to, in the order
// they are tried (the model, then its fallbacks), each once: prices and
// the checks of them go by name, and a fallback may be the same model at
// another endpoint.
func (m Model) Names() []string {
	names := make([]string, 0, 1+len(m.Fallbacks))
	for i := 0; i <= len(m.Fallbacks); i++ {
		if n := m.At(i).Name; !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// providerOf names an endpoint's provider for a run: a digest of its
// host, so a run can tell providers apart without holding an address (its
// path, query or userinfo may hold a secret, and the host is the worker's
// to know).
func providerOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.ToLower(u.Host)))
	return "p" + hex.EncodeToString(sum[:6])
}

// modelFallbacks checks a model's fallbacks: each names a model, and none
// is the model itself or another fallback again.
func (c *checker) modelFallbacks(p path, m Model) {
	seen := map[string]int{fallbackKey(m.Name, m.BaseURL): -1}
	for i, fb := range m.Fallbacks {
		fp := p.key("fallbacks").idx(i)
		if fb.Name == "" {
			c.add(fp.key("name"), "missing: the model to turn to, e.g. gpt-4o-mini")
			continue
		}
		c.endpoint(fp.key("base_url"), fb.BaseURL)
		base := fb.BaseURL
		if base == "" {
			base = m.BaseURL
		}
		switch j, dup := seen[fallbackKey(fb.Name, base)]; {
		case dup && j < 0:
			c.add(fp, "names the model itself (%s at the same endpoint): a fallback must be another model or provider", fb.Name)
		case dup:
			c.add(fp, "repeats fallbacks[%d] (%s at the same endpoint): each model is tried once", j, fb.Name)
		default:
			seen[fallbackKey(fb.Name, base)] = i
		}
	}
}

func fallbackKey(name, base string) string { return fmt.Sprintf("%s@%s", name, base) }
