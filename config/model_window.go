package config

import "strings"

// modelFamilies are the token windows of known model families, longest
// prefix first: what a model name starting with the prefix takes in all,
// and the most a reply may take (the providers' published figures).
var modelFamilies = []struct {
	prefix         string
	window, output int
}{
	{"gpt-4o-mini", 128_000, 16_384},
	{"gpt-4o", 128_000, 16_384},
	{"chatgpt-4o", 128_000, 16_384},
	{"gpt-4.1", 1_047_576, 32_768},
	{"gpt-4-turbo", 128_000, 4_096},
	{"gpt-4", 8_192, 4_096},
	{"gpt-3.5-turbo", 16_385, 4_096},
	{"gpt-5", 400_000, 128_000},
	{"o1-mini", 128_000, 65_536},
	{"o1", 200_000, 100_000},
	{"o3", 200_000, 100_000},
	{"o4-mini", 200_000, 100_000},
	{"claude", 200_000, 8_192},
}

// Window is the model's token window and the most a reply may take: the
// config's when written, else its family's; known is false when neither
// says the window.
func (m Model) Window() (window, output int, known bool) {
	window, output = m.ContextWindow, m.MaxOutputTokens
	name := strings.ToLower(m.Name)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:] // "openai/gpt-4o", as routers name it
	}
	for _, f := range modelFamilies {
		if strings.HasPrefix(name, f.prefix) {
			if window == 0 {
				window = f.window
			}
			if output == 0 {
				output = min(f.output, window/4)
			}
			break
		}
	}
	if window > 0 && output == 0 {
		output = window / 4
	}
	return window, output, window > 0
}

// PromptBudget is the tokens a request's prompt may take before the
// conversation is compacted (policies.context.compact_at of what the
// window leaves after the reply); 0 when the agent does not compact or
// its model's window is unknown.
func (r *Resolved) PromptBudget() int {
	c := r.Agent.Policies.Context
	window, output, known := r.Model.Window()
	if c == nil || !known || window <= output {
		return 0
	}
	return int(c.CompactAt * float64(window-output))
}
