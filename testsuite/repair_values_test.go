package testsuite

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Issue 14's value repairs on a real server: a list written as text is
// split (not wrapped whole into one item), "on" is a boolean, without a
// model request. The history records the repair-values marker, so it
// replays only with the rule set it was repaired with.
func TestListAndBooleanWordsRepairedWithoutTheModel(t *testing.T) {
	t.Parallel()
	s, tools := repairStack(t, bookerScript("book", map[string]any{
		"flight_id": "UA1", "date": "2024-10-26", "cabin": "business", "passengers": 2,
		"meals": "vegetarian, kosher", "insured": "on",
	}))
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "Book UA1 on 2024-10-26 in business for two, vegetarian and kosher meals, insured"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Contains(t, string(res.Output), "CONF-42")
	require.Equal(t, 0, repairRequests(s), "no model request for what rules repair")
	book := tools.requests("/book")
	require.Len(t, book, 1)
	require.JSONEq(t, `{"flight_id":"UA1","date":"2024-10-26","cabin":"business","passengers":2,"meals":["vegetarian","kosher"],"insured":true}`, book[0].Body)
	out := string(nodesOf(s.trace(run), signals.KindRepair)[0].Output)
	require.Contains(t, out, `"strategy":"split_list"`)
	require.Contains(t, out, `"strategy":"coerce_type"`)
	recordAndReplay(t, run, "repair_values_list_boolean")
}
