package config

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// toolName is what OpenAI-compatible servers accept as a function name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// providerName is a provider label: compared, never called, so it only
// has to be a plain word (openai, aws/eu-west-1, billing.internal).
var providerName = regexp.MustCompile(`^[a-zA-Z0-9_./-]{1,64}$`)

// tools checks the tools and answers their names (name → index), which
// agents and fallbacks are checked against.
func (c *checker) tools(ts []Tool) map[string]int {
	names := map[string]int{}
	for i, t := range ts {
		p := path{"tools", i, "name"}
		switch j, dup := names[t.Name]; {
		case t.Name == "":
			c.add(p, "missing: every tool needs a name")
			continue
		case !toolName.MatchString(t.Name):
			c.add(p, "invalid tool name %q: use 1 to 64 letters, digits, _ or -", t.Name)
		case slices.Contains(reservedTools, t.Name):
			c.add(p, "tool name %q is reserved by the engine", t.Name)
		case dup:
			c.add(p, "duplicate tool name %q (also tools[%d])", t.Name, j)
			continue
		}
		names[t.Name] = i
	}
	for i := range ts {
		c.tool(path{"tools", i}, &ts[i], names)
		c.checks(path{"tools", i}, ts[i], ts, names)
	}
	c.fallbackCycles(ts, names)
	return names
}

// fallbackCycles refuses a chain of fallbacks that comes back to a tool of
// it (a -> b -> a): a breaker open on each would send calls round it. A
// tool that is its own fallback is refused by tool.
func (c *checker) fallbackCycles(ts []Tool, names map[string]int) {
	for i, t := range ts {
		chain := []string{t.Name}
		for next := t.Fallback; next != "" && next != t.Name; {
			j, ok := names[next]
			if !ok || slices.Contains(chain, next) {
				break // unknown (refused by tool), or a cycle that does not pass through t (reported at its own tools)
			}
			chain = append(chain, next)
			next = ts[j].Fallback
			if next == t.Name && len(chain) > 1 {
				c.add(path{"tools", i, "fallback"}, "the fallback chain comes back to %s: %s -> %s", t.Name, strings.Join(chain, " -> "), t.Name)
			}
		}
	}
}

func (c *checker) tool(p path, t *Tool, names map[string]int) {
	reached := 0
	for _, set := range []bool{t.HTTP != nil, t.Builtin != "", t.MCP != nil} {
		if set {
			reached++
		}
	}
	switch {
	case reached > 1:
		c.add(p, "set one of http, builtin or mcp, not several")
	case reached == 0:
		c.add(p, "missing http, builtin or mcp: say how the tool is reached")
	case t.MCP != nil:
		c.mcpTool(p, t)
	case t.HTTP != nil:
		c.httpTool(p.key("http"), t.HTTP)
	case c.opts.KnownBuiltin == nil:
		c.add(p.key("builtin"), "builtin %q is not available: this program registers no built-in tools", t.Builtin)
	case !c.opts.KnownBuiltin(t.Builtin):
		c.add(p.key("builtin"), "unknown builtin %q", t.Builtin)
	}
	if t.MCP == nil || t.Effect != "" {
		c.oneOf(p.key("effect"), "effect", t.Effect, effects)
	}
	c.approval(p.key("approval"), t.Approval)
	c.oneOf(p.key("reexecute"), "reexecute", t.Reexecute, reexecutes)
	if t.Retry != nil {
		c.retry(p.key("retry"), t.Retry)
	}
	switch _, ok := names[t.Fallback]; {
	case t.Fallback == "":
	case t.Fallback == t.Name:
		c.add(p.key("fallback"), "a tool cannot be its own fallback")
	case !ok:
		c.add(p.key("fallback"), "unknown tool %q (known: %s)", t.Fallback, known(names))
	}
	if t.Provider != "" && !providerName.MatchString(t.Provider) {
		c.add(p.key("provider"), "invalid provider %q: use 1 to 64 letters, digits, _, -, . or /", t.Provider)
	}
	c.volatile(p.key("volatile"), t.Volatile)
	c.toolLimits(p, t)
	c.toolLocal(p, t)
	for j, r := range t.Errors {
		c.errorRule(p.key("errors").idx(j), r)
	}
	if t.Parameters != nil {
		what := "tool " + strconv.Quote(t.Name) + " parameters"
		if c.schema(p.key("parameters"), what, t.Parameters) && t.Parameters["type"] != "object" {
			c.add(p.key("parameters"), `%s: the top-level "type" must be "object" (a call's arguments are a JSON object)`, what)
		}
	}
}

func (c *checker) httpTool(p path, h *HTTPTool) {
	c.oneOf(p.key("method"), "method", strings.ToUpper(h.Method), httpMethods)
	if h.URL == "" {
		c.add(p.key("url"), "missing: the URL to call")
	} else if why := httpURLProblem(h.URL); why != "" {
		c.add(p.key("url"), "%s", why)
	}
	if h.Timeout <= 0 {
		c.add(p.key("timeout"), "must be > 0, got %s", h.Timeout.D())
	}
	c.headers(p.key("headers"), h.Headers)
}

func (c *checker) retry(p path, r *Retry) {
	if r.Backoff < 1 {
		c.add(p.key("backoff"), "must be at least 1, got %v", r.Backoff)
	}
	if r.InitialInterval <= 0 {
		c.add(p.key("initial_interval"), "must be > 0, got %s", r.InitialInterval.D())
	}
	if r.MaxInterval <= 0 {
		c.add(p.key("max_interval"), "must be > 0, got %s", r.MaxInterval.D())
	} else if r.MaxInterval < r.InitialInterval {
		c.add(p.key("max_interval"), "%s is below initial_interval %s", r.MaxInterval.D(), r.InitialInterval.D())
	}
	if r.MaxAttempts < 0 {
		c.add(p.key("max_attempts"), "must be at least 0 (0: unlimited), got %d", r.MaxAttempts)
	}
}

func (c *checker) errorRule(p path, r ErrorRule) {
	c.oneOf(p.key("class"), "class", r.Class, classes)
	if r.Status == 0 && r.Message == "" {
		c.add(p, "a rule needs status or message to match on")
	}
	if r.Status != 0 && (r.Status < 100 || r.Status > 599) {
		c.add(p.key("status"), "%d is not an HTTP status (100..599)", r.Status)
	}
	if r.Message != "" {
		c.regex(p.key("message"), r.Message)
	}
}

// regex checks a regular expression of the file (Go RE2 syntax).
func (c *checker) regex(p path, expr string) {
	if _, err := regexp.Compile(expr); err != nil {
		c.add(p, "invalid regular expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
}

// approval checks a tool's approval: a mode, or a {when} whose condition
// compiles against ApprovalEnv (args, state, input).
func (c *checker) approval(p path, a Approval) {
	c.deadline(p, a)
	if !a.Conditional() {
		c.oneOf(p, "approval", a.Mode, approvals)
		return
	}
	if _, err := CompileApprovalWhen(a.When); err != nil {
		c.add(p.key("when"), "%v", err)
	}
}
