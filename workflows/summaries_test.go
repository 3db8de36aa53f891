package workflows

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToolSummary(t *testing.T) {
	cases := []struct{ args, want string }{
		{`{"q":"AAPL"}`, "search(q=AAPL)"},
		{`{"q": "a\n b", "n": 3, "f": {"x": [1, 2]}}`, `search(q=a b, n=3, f={"x":[1,2]})`},
		{``, "search()"},
		{`[1, 2]`, "search([1,2])"},
		{`not json`, "search(not json)"},
	}
	for _, c := range cases {
		if got := toolSummary("search", json.RawMessage(c.args)); got != c.want {
			t.Errorf("toolSummary(%s) = %q, want %q", c.args, got, c.want)
		}
	}
	long := toolSummary("search", json.RawMessage(`{"q":"`+strings.Repeat("é", 200)+`"}`))
	if n := len([]rune(long)); n != len("search()")+argsSummaryLimit || !strings.HasSuffix(long, "…)") {
		t.Errorf("long summary %q (%d characters)", long, n)
	}
	if got := modelSummary(3); got != "model: step 3" {
		t.Errorf("modelSummary = %q", got)
	}
	if got := backoffSummary(2, "search"); got != "backoff before retry 2 of search" {
		t.Errorf("backoffSummary = %q", got)
	}
}
