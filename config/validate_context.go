package config

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/tokens"
)

// contexts checks each agent's policies.context against its model's
// token window: known, larger than a reply, and larger than what every
// request takes before the conversation (the instructions and the tool
// definitions).
func (c *checker) contexts(f *File) {
	noEnv := func(string) (string, bool) { return "", false }
	for i := range f.Agents {
		a := &f.Agents[i]
		cp := a.Policies.Context
		if cp == nil {
			continue
		}
		p := path{"agents", i, "policies", "context"}
		if a.Kind == KindHuman {
			c.add(p, "applies to llm agents: a person (kind: human) never calls a model")
			continue
		}
		if !(cp.CompactAt > 0 && cp.CompactAt < 1) {
			c.add(p.key("compact_at"), "must be between 0 and 1 (a share of the model's window, e.g. 0.8), got %g", cp.CompactAt)
		}
		if cp.KeepLast < 1 {
			c.add(p.key("keep_last"), "must be at least 1 (the steps whose results stay whole), got %d", cp.KeepLast)
		}
		m := f.agentModel(a, noEnv)
		window, output, known := m.Window()
		mp := path{"model"}
		if a.Model != nil && (a.Model.Name != "" || a.Model.ContextWindow > 0) {
			mp = path{"agents", i, "model"}
		}
		switch {
		case !known:
			c.add(mp.key("context_window"), "missing for model %q, which policies.context of agent %q needs: give the model's token window (e.g. 128000)", m.Name, a.Name)
		case window <= output:
			c.add(mp.key("max_output_tokens"), "%d leaves no room for a prompt in a context_window of %d tokens", output, window)
		default:
			if fixed := fixedPromptTokens(f, a, m.Name); fixed >= window-output {
				c.add(mp.key("context_window"), "%d tokens, less a reply's %d, leave no room for agent %q's conversation: its instructions and tool definitions alone take %d",
					window, output, a.Name, fixed)
			}
		}
	}
}

// fixedPromptTokens is what every request of the agent takes before the
// conversation: its instructions and the definitions of its tools (MCP
// tools are known only once their server answers, and are not counted).
func fixedPromptTokens(f *File, a *Agent, model string) int {
	n := tokens.Count(model, a.Instructions)
	for _, name := range a.Tools {
		for _, t := range f.Tools {
			if t.Name == name {
				def, _ := json.Marshal(map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters})
				n += tokens.Count(model, string(def))
			}
		}
	}
	return n
}
