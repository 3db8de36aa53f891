package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Validate checks a File built or changed in Go (Parse validates for you).
// Without the file's text its errors carry no file name or line.
func (f *File) Validate(opts Options) error { return f.validate("", nil, opts) }

// validate checks the whole file and answers every problem found, each an
// *Error, joined. It runs after defaults, so it sees what a run would see.
func (f *File) validate(file string, doc *yaml.Node, opts Options) error {
	c := &checker{file: file, doc: doc, opts: opts}
	c.servers = c.mcpServers(f.MCPServers)
	tools := c.tools(f.Tools)
	c.models(f)
	c.stalls(f)
	c.agents(f.Agents, tools)
	c.contexts(f)
	c.budgets(f)
	c.outages(f)
	c.workerTuning(&f.Worker)
	c.notify(f.Notify)
	c.people(f.People)
	for i, t := range f.Tools {
		c.approvers(path{"tools", i, "approval"}, t.Approval, f.People)
	}
	c.humanApprovals(f.Agents, f.People)
	return errors.Join(c.errs...)
}

// checker collects problems with their place in the file.
type checker struct {
	file string
	doc  *yaml.Node
	opts Options
	errs []error
	// servers are the MCP servers' names (name → index).
	servers map[string]int
}

// add records a problem at p, on p's line.
func (c *checker) add(p path, format string, args ...any) {
	c.addAt(p, p, format, args...)
}

// addAt records a problem at p but on the line of a deeper place, e.g. the
// failing keyword inside a schema.
func (c *checker) addAt(p, lineAt path, format string, args ...any) {
	c.errs = append(c.errs, &Error{
		File:   c.file,
		Path:   p.String(),
		Line:   lineOf(c.doc, lineAt),
		Reason: fmt.Sprintf(format, args...),
	})
}

// oneOf checks an enum field; the reason lists what is accepted.
func (c *checker) oneOf(p path, what, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		c.add(p, "invalid %s %q (want one of %s)", what, v, strings.Join(allowed, ", "))
	}
}

// schema checks a JSON Schema of the file. what names it in the reason
// (e.g. `tool "book_flight" parameters`); the line is the failing
// keyword's when the compiler says which.
func (c *checker) schema(p path, what string, doc map[string]any) bool {
	_, err := compileSchema(doc)
	if err == nil {
		return true
	}
	at := p
	for _, s := range err.At {
		at = at.key(s)
	}
	c.addAt(p, at, "%s: %v", what, err)
	return false
}

// models checks the default model and the agents' own. The default is
// only required when some llm agent has no model of its own: a file of
// human agents, or of agents that all name their model, needs none.
func (c *checker) models(f *File) {
	c.endpoint(path{"model", "base_url"}, f.Model.BaseURL)
	c.modelPolicy(path{"model"}, f.Model)
	c.modelFallbacks(path{"model"}, f.Model)
	var needURL, needName bool
	for i, a := range f.Agents {
		if a.Model != nil {
			c.endpoint(path{"agents", i, "model", "base_url"}, a.Model.BaseURL)
			c.modelPolicy(path{"agents", i, "model"}, *a.Model)
			if a.Model.Fallbacks != nil {
				c.modelFallbacks(path{"agents", i, "model"}, f.agentModel(&f.Agents[i], func(string) (string, bool) { return "", false }))
			}
		}
		if a.Kind == KindHuman {
			continue
		}
		needURL = needURL || a.Model == nil || a.Model.BaseURL == ""
		needName = needName || a.Model == nil || a.Model.Name == ""
	}
	if needURL && f.Model.BaseURL == "" {
		c.add(path{"model", "base_url"}, "missing: the chat-completions endpoint, e.g. http://127.0.0.1:8080/v1 (required unless every llm agent sets model.base_url)")
	}
	if needName && f.Model.Name == "" {
		c.add(path{"model", "name"}, "missing: the model name, e.g. gpt-4o-mini (required unless every llm agent sets model.name)")
	}
}

// modelPolicy checks a model's retry policy and timeout, when written.
func (c *checker) modelPolicy(p path, m Model) {
	if m.Retry != nil {
		c.retry(p.key("retry"), m.Retry)
	}
	if m.Timeout < 0 {
		c.add(p.key("timeout"), "must be > 0, got %s", m.Timeout.D())
	}
	if b := m.Breaker; b != nil {
		bp := p.key("breaker")
		if b.Failures < 0 {
			c.add(bp.key("failures"), "must be at least 1, got %d", b.Failures)
		}
		if b.Cooldown < 0 {
			c.add(bp.key("cooldown"), "must be > 0, got %s", b.Cooldown.D())
		}
	}
	if m.FallbackCooldown < 0 {
		c.add(p.key("fallback_cooldown"), "must be > 0, got %s", m.FallbackCooldown.D())
	}
}

// endpoint checks a URL that is set.
func (c *checker) endpoint(p path, s string) {
	if s == "" {
		return
	}
	if why := httpURLProblem(s); why != "" {
		c.add(p, "%s", why)
	}
}

// httpURLProblem says why s is not an absolute http(s) URL, or "".
func httpURLProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Sprintf("invalid URL %q: %v", s, errors.Unwrap(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("invalid URL %q: want an absolute http:// or https:// URL", s)
	case u.Host == "":
		return fmt.Sprintf("invalid URL %q: no host", s)
	}
	return ""
}

// known lists names for an "unknown x" reason, sorted.
func known(names map[string]int) string {
	if len(names) == 0 {
		return "none defined"
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return strings.Join(list, ", ")
}
