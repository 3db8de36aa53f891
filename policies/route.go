package policies

import "fmt"

// RouteTool is what routing needs to know of a tool.
type RouteTool struct {
	Name          string
	Fallback      string // "" when none
	NeedsApproval bool   // approval: always, or {when} (the pipeline evaluates it)
}

// Route is where a call goes: Tool to run (the first tool, or a fallback
// serving it), or Refusal (non-empty) saying why it is not called at all;
// a refused route keeps the first tool in Tool.
type Route struct {
	Tool    string
	Refusal string
	// NeedsApproval: Tool is a fallback that needs an approval of its own
	// (a person approved, or would approve, a call of the first tool).
	NeedsApproval bool
}

// FallbackOf is the tool the call was for, when Tool is a fallback serving
// it; "" otherwise (the first tool itself, or a refusal). The trace shows
// the substitution under the tool the model asked for.
func (r Route) FallbackOf(first string) string {
	if r.Refusal == "" && r.Tool != first {
		return first
	}
	return ""
}

// RouteCall applies the circuit breakers to a call of `first`: a tool
// whose breaker is open is replaced by its fallback (the substitute), or
// not called at all. It follows the fallback chain from first while
// breakers are open: allow(name) asks the tool's breaker (it may move an
// open breaker to half-open, so it is called at most once per tool, in
// chain order, stopping at the first allowed); lookup finds a tool of the
// run (ok false: the chain ends; a first it cannot find is a tool without
// fallback). Each tool is visited once, so a fallback cycle ends the
// chain. failures(first) is asked only for the refusal, after the chain.
//
// A fallback that needs an approval of its own is answered with
// NeedsApproval: a person approved (or would approve) a call of first,
// not of it, so it must be approved before it runs.
func RouteCall(first string, lookup func(name string) (RouteTool, bool), allow func(name string) bool, failures func(name string) int) Route {
	tool, ok := lookup(first)
	if !ok {
		tool = RouteTool{Name: first}
	}
	for seen := map[string]bool{}; !seen[tool.Name]; {
		seen[tool.Name] = true
		if allow(tool.Name) {
			if tool.Name != first && tool.NeedsApproval {
				return Route{Tool: tool.Name, NeedsApproval: true}
			}
			return Route{Tool: tool.Name}
		}
		if tool.Fallback == "" {
			break
		}
		fb, ok := lookup(tool.Fallback)
		if !ok {
			break
		}
		tool = fb
	}
	return Route{Tool: first, Refusal: fmt.Sprintf("circuit open: %s failed %d times in a row; it is not called until its cooldown passes", first, failures(first))}
}
