package config

import (
	"fmt"
	"os"
	"sort"
)

// Resolved is what a run needs of the config: its agent, the model it
// talks to and the tools it may call. The workflow keeps it in its state
// (it travels as JSON), so a worker restarted with another file never
// changes a running agent. It shares maps with the File: treat it as
// read-only.
type Resolved struct {
	Agent Agent  `json:"agent"`
	Model Model  `json:"model"`
	Tools []Tool `json:"tools"` // the agent's tools and their fallbacks, by name
}

// Resolve looks an agent up. Its Model is the agent's own fields over the
// file's, then OPENAI_BASE_URL (when set and not empty) over base_url, as
// CONTRACT.md promises. Its Tools are the agent's tools and, transitively,
// their fallbacks, since a substitute must be callable when a breaker
// opens. getenv nil is os.LookupEnv.
func (f *File) Resolve(agent string, getenv func(string) (string, bool)) (*Resolved, error) {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	names := map[string]int{}
	var a *Agent
	for i := range f.Agents {
		names[f.Agents[i].Name] = i
		if f.Agents[i].Name == agent && a == nil {
			a = &f.Agents[i]
		}
	}
	if a == nil {
		return nil, fmt.Errorf("unknown agent %q (known: %s)", agent, known(names))
	}
	r := &Resolved{Agent: *a, Model: f.Model}
	if m := a.Model; m != nil {
		if m.BaseURL != "" {
			r.Model.BaseURL = m.BaseURL
		}
		if m.APIKeyEnv != "" {
			r.Model.APIKeyEnv = m.APIKeyEnv
		}
		if m.Name != "" {
			r.Model.Name = m.Name
		}
		if m.Retry != nil {
			r.Model.Retry = m.Retry
		}
		if m.Timeout > 0 {
			r.Model.Timeout = m.Timeout
		}
	}
	// OPENAI_BASE_URL and OPENAI_API_KEY override the file's model. An
	// agent that names an endpoint of its own keeps it, and never gets
	// OPENAI_API_KEY: that key would go to another provider.
	if a.Model != nil && a.Model.BaseURL != "" {
		r.Model.OwnEndpoint = true
	} else if v, ok := getenv("OPENAI_BASE_URL"); ok && v != "" {
		r.Model.BaseURL = v
	}
	r.Tools = f.toolClosure(a.Tools)
	return r, nil
}

// toolClosure is the named tools plus their fallback chains, sorted by
// name. Unknown names are skipped: validation has refused them already.
func (f *File) toolClosure(names []string) []Tool {
	byName := make(map[string]Tool, len(f.Tools))
	for _, t := range f.Tools {
		if _, dup := byName[t.Name]; !dup {
			byName[t.Name] = t
		}
	}
	picked := map[string]Tool{}
	for _, n := range names {
		for t, ok := byName[n]; ok; t, ok = byName[t.Fallback] {
			if _, seen := picked[t.Name]; seen {
				break
			}
			picked[t.Name] = t
		}
	}
	out := make([]Tool, 0, len(picked))
	for _, t := range picked {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Tool finds one of the resolved tools by name.
func (r *Resolved) Tool(name string) (Tool, bool) {
	for _, t := range r.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// APIKey is the key to send to the model: OPENAI_API_KEY when set and not
// empty (CONTRACT.md: it overrides the config), else the variable named
// by api_key_env. It is read at call time and never stored, so it stays
// out of workflow histories.
func (m Model) APIKey(getenv func(string) (string, bool)) string {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	if v, ok := getenv("OPENAI_API_KEY"); ok && v != "" && !m.OwnEndpoint {
		return v
	}
	if m.APIKeyEnv == "" {
		return ""
	}
	v, _ := getenv(m.APIKeyEnv)
	return v
}
