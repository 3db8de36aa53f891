package policies

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRouteCall(t *testing.T) {
	tools := map[string]RouteTool{
		"search":  {Name: "search", Fallback: "mirror"},
		"mirror":  {Name: "mirror", Fallback: "cache"},
		"cache":   {Name: "cache"},
		"pay":     {Name: "pay", Fallback: "pay2", NeedsApproval: true},
		"pay2":    {Name: "pay2", NeedsApproval: true},
		"send":    {Name: "send", Fallback: "pay2"},
		"ping":    {Name: "ping", Fallback: "pong"},
		"pong":    {Name: "pong", Fallback: "ping"},
		"self":    {Name: "self", Fallback: "self"},
		"dangles": {Name: "dangles", Fallback: "gone"},
	}
	lookup := func(name string) (RouteTool, bool) {
		t, ok := tools[name]
		return t, ok
	}
	failures := map[string]int{"search": 3, "ping": 5, "self": 2, "dangles": 4, "ghost": 1}
	const openSearch = "circuit open: search failed 3 times in a row; it is not called until its cooldown passes"
	cases := []struct {
		name    string
		first   string
		open    []string // breakers that refuse
		want    Route
		fbOf    string
		allowed []string // the breakers asked, in order
	}{
		{"closed: the tool itself", "search", nil, Route{Tool: "search"}, "", []string{"search"}},
		{"open: its fallback", "search", []string{"search"}, Route{Tool: "mirror"}, "search", []string{"search", "mirror"}},
		{"a chain of fallbacks", "search", []string{"search", "mirror"}, Route{Tool: "cache"}, "search", []string{"search", "mirror", "cache"}},
		{"the chain exhausted", "search", []string{"search", "mirror", "cache"}, Route{Tool: "search", Refusal: openSearch}, "", []string{"search", "mirror", "cache"}},
		{"no fallback", "cache", []string{"cache"}, Route{Tool: "cache", Refusal: "circuit open: cache failed 0 times in a row; it is not called until its cooldown passes"}, "", []string{"cache"}},
		{"a fallback the run does not have", "dangles", []string{"dangles"}, Route{Tool: "dangles", Refusal: "circuit open: dangles failed 4 times in a row; it is not called until its cooldown passes"}, "", []string{"dangles"}},
		{"a fallback cycle ends", "ping", []string{"ping", "pong"}, Route{Tool: "ping", Refusal: "circuit open: ping failed 5 times in a row; it is not called until its cooldown passes"}, "", []string{"ping", "pong"}},
		{"a tool its own fallback", "self", []string{"self"}, Route{Tool: "self", Refusal: "circuit open: self failed 2 times in a row; it is not called until its cooldown passes"}, "", []string{"self"}},
		{"a first that needs approval runs itself", "pay", nil, Route{Tool: "pay"}, "", []string{"pay"}},
		{"a fallback that needs approval asks for it", "pay", []string{"pay"}, Route{Tool: "pay2", NeedsApproval: true}, "pay", []string{"pay", "pay2"}},
		{"even for a first without approval", "send", []string{"send"}, Route{Tool: "pay2", NeedsApproval: true}, "send", []string{"send", "pay2"}},
		{"an unknown first: allowed", "ghost", nil, Route{Tool: "ghost"}, "", []string{"ghost"}},
		{"an unknown first: open", "ghost", []string{"ghost"}, Route{Tool: "ghost", Refusal: "circuit open: ghost failed 1 times in a row; it is not called until its cooldown passes"}, "", []string{"ghost"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			allow := func(name string) bool {
				asked = append(asked, name)
				for _, o := range tc.open {
					if o == name {
						return false
					}
				}
				return true
			}
			got := RouteCall(tc.first, lookup, allow, func(name string) int {
				require.Equal(t, tc.first, name, "failures are of the first tool")
				require.Equal(t, tc.allowed, asked, "failures are read after the chain")
				return failures[name]
			})
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.fbOf, got.FallbackOf(tc.first))
			require.Equal(t, tc.allowed, asked, "each breaker asked once, in chain order")
		})
	}
}

func TestRouteFallbackOf(t *testing.T) {
	cases := []struct {
		name  string
		route Route
		want  string
	}{
		{"the first tool", Route{Tool: "a"}, ""},
		{"a fallback", Route{Tool: "b"}, "a"},
		{"a refusal", Route{Tool: "a", Refusal: "circuit open"}, ""},
		{"a refusal naming another tool", Route{Tool: "b", Refusal: "circuit open"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.route.FallbackOf("a"))
		})
	}
}
