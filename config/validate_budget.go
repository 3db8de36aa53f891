package config

import (
	"slices"
	"strings"
)

// budgets checks the file's budget, each agent's, and the prices a cost
// budget needs: a limit is positive (left out for none), a currency is an
// ISO 4217 code and the prices', a tool limit names a tool the agent
// may call, and every model an agent with a cost budget may ask has a
// price. A price for a model or tool the file does not have is refused:
// it would price nothing, likely a typo.
func (c *checker) budgets(f *File) {
	c.prices(f)
	if f.Budget != nil {
		c.budget(path{"budget"}, f.Budget, f, nil)
	}
	for i := range f.Agents {
		a := &f.Agents[i]
		b := a.Policies.Budget
		if b == nil {
			continue
		}
		p := path{"agents", i, "policies", "budget"}
		if a.Kind == KindHuman {
			c.add(p, "applies to llm agents: a person (kind: human) spends nothing a budget counts")
			continue
		}
		c.budget(p, b, f, a)
	}
}

// budget checks one budget; a is its agent, nil for the file's default.
func (c *checker) budget(p path, b *Budget, f *File, a *Agent) {
	positive := func(key string, v *int64) {
		if v != nil && *v <= 0 {
			c.add(p.key(key), "must be > 0 (leave it out for no limit), got %d", *v)
		}
	}
	positive("input_tokens", b.InputTokens)
	positive("output_tokens", b.OutputTokens)
	positive("model_requests", b.ModelRequests)
	positive("tool_calls", b.ToolCalls)
	// wall_time is a Duration, not a pointer like the counts (a run reads
	// 0 as no limit), so a written 0 is told from an absent one by the
	// file's node tree, and refused like the other zero limits.
	if wp := p.key("wall_time"); b.WallTime < 0 || (b.WallTime == 0 && written(c.doc, wp)) {
		c.add(wp, "must be > 0 (leave it out for no limit), got %s", b.WallTime.D())
	}
	for _, tool := range sortedKeys(b.ToolCallsPerTool) {
		tp := p.key("tool_calls_per_tool").key(tool)
		if n := b.ToolCallsPerTool[tool]; n <= 0 {
			c.add(tp, "must be > 0 (leave the tool out for no limit), got %d", n)
		}
		if !slices.ContainsFunc(f.Tools, func(t Tool) bool { return t.Name == tool }) {
			c.add(tp, "unknown tool %q", tool)
		} else if a != nil && !slices.Contains(a.Tools, tool) {
			c.add(tp, "agent %q does not call tool %q (its tools: %s)", a.Name, tool, strings.Join(a.Tools, ", "))
		}
	}
	if b.Cost == nil {
		return
	}
	cp := p.key("cost")
	if !(b.Cost.Limit > 0 && b.Cost.Limit <= MaxAmount) {
		c.add(cp.key("limit"), "must be > 0 and at most %d, got %g", MaxAmount, b.Cost.Limit)
	}
	switch {
	case !knownCurrency(b.Cost.Currency):
		c.add(cp.key("currency"), "unknown currency %q: give an ISO 4217 code such as USD or EUR", b.Cost.Currency)
	case f.Prices == nil:
		c.add(cp, "a cost budget needs prices: add prices.models (per million tokens) and prices.tools (per call)")
		return
	case strings.ToUpper(b.Cost.Currency) != f.Prices.currency(): // both in any case, as knownCurrency
		c.add(cp.key("currency"), "%s, but prices are in %s (prices.currency): costs are not converted", b.Cost.Currency, f.Prices.currency())
	}
	agents := []*Agent{a}
	if a == nil { // the file's default: every agent without its own
		agents = nil
		for i := range f.Agents {
			if f.Agents[i].Policies.Budget == nil && f.Agents[i].Kind != KindHuman {
				agents = append(agents, &f.Agents[i])
			}
		}
	}
	noEnv := func(string) (string, bool) { return "", false }
	for _, ag := range agents {
		for _, name := range f.agentModel(ag, noEnv).Names() {
			if !hasKey(f.Prices.Models, name) {
				c.add(cp, "agent %q may ask model %q, which has no price: add prices.models.%s: { input: ..., output: ... } (per million tokens)", ag.Name, name, name)
			}
		}
	}
}

// prices checks the price list: known currency, no negative price, and
// no price for a model or tool the file does not have.
func (c *checker) prices(f *File) {
	pr := f.Prices
	if pr == nil {
		return
	}
	p := path{"prices"}
	if pr.Currency != "" && !knownCurrency(pr.Currency) {
		c.add(p.key("currency"), "unknown currency %q: give an ISO 4217 code such as USD or EUR", pr.Currency)
	}
	models := modelNames(f)
	for _, name := range sortedKeys(pr.Models) {
		mp := p.key("models").key(name)
		if !slices.Contains(models, name) {
			c.add(mp, "no model of this file is named %q (models: %s)", name, strings.Join(models, ", "))
		}
		price := pr.Models[name]
		if !(price.Input >= 0 && price.Input <= MaxTokenPrice && price.Output >= 0 && price.Output <= MaxTokenPrice) {
			c.add(mp, "a price per million tokens must be between 0 and %d, got input %g, output %g", MaxTokenPrice, price.Input, price.Output)
		}
	}
	for _, name := range sortedKeys(pr.Tools) {
		tp := p.key("tools").key(name)
		if !slices.ContainsFunc(f.Tools, func(t Tool) bool { return t.Name == name }) {
			c.add(tp, "unknown tool %q", name)
		}
		if price := pr.Tools[name]; !(price >= 0 && price <= MaxAmount) {
			c.add(tp, "a price per call must be between 0 and %d, got %g", MaxAmount, price)
		}
	}
}

// modelNames are the names of every model the file may ask: the file's,
// the agents' own, and their fallbacks.
func modelNames(f *File) []string {
	var names []string
	add := func(m Model) {
		for _, n := range m.Names() {
			if n != "" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	add(f.Model)
	noEnv := func(string) (string, bool) { return "", false }
	for i := range f.Agents {
		add(f.agentModel(&f.Agents[i], noEnv))
	}
	slices.Sort(names)
	return names
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}
