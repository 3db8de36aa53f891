package testsuite

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Whole-argument mistakes of real models, repaired by rules on a real
// server without a model request: one call's arguments double-encoded as
// a JSON string, another's written as a Python dict and wrapped in
// {"arguments": ...}. The history is kept, so a change of these rules is
// caught by replay.
func TestWholeArgumentsRepairedWithoutTheModel(t *testing.T) {
	t.Parallel()
	const want = `{"flight_id":"UA1","date":"2024-10-26","passengers":1,"cabin":"economy"}`
	script := func(req openaiRequest) scriptedmodel.Turn {
		if scriptedmodel.AssistantTurns(req) == 0 {
			return scriptedmodel.CallsTurn(
				scriptedmodel.Call{Name: "book", Args: `"{\"flight_id\": \"UA1\", \"date\": \"2024-10-26\", \"passengers\": 1, \"cabin\": \"economy\"}"`},
				scriptedmodel.Call{Name: "book", Args: `{'arguments': {'flight_id': 'UA1', 'date': '2024-10-26', 'passengers': 1, 'cabin': 'economy',},}`},
			)
		}
		return scriptedmodel.CallsTurn(scriptedmodel.Call{Name: "final_output", Args: scriptedmodel.LastToolResults(req)[0].Content})
	}
	s, tools := repairStack(t, script)
	run := s.start(workflows.AgentInput{Agent: "booker", Task: "Book UA1 on 2024-10-26 for me, twice"})
	res, err := s.result(run)
	require.NoError(t, err)
	require.Contains(t, string(res.Output), "CONF-42")
	require.Equal(t, 0, repairRequests(s), "no model request for what rules repair")
	book := tools.requests("/book")
	require.Len(t, book, 2, "both calls reached the tool")
	for _, b := range book {
		require.JSONEq(t, want, b.Body)
	}
	var out []string
	for _, n := range nodesOf(s.trace(run), signals.KindRepair) {
		out = append(out, string(n.Output))
	}
	all := strings.Join(out, "\n")
	for _, strategy := range []string{"decode_json_string", "lenient_json", "unwrap_arguments"} {
		require.Contains(t, all, `"strategy":"`+strategy+`"`)
	}
	recordAndReplay(t, run, "repair_whole_arguments")
}
