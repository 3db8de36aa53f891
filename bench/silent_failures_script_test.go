package bench

import (
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// bookRoom is the room every run of BenchmarkSilentFailures books.
const bookRoom = "12"

// bookingScript is the scripted model (a test double) of
// BenchmarkSilentFailures, acting as a reasonable agent would: it calls
// the booking tool the task names ("book room 12 with TOOL"); while its
// last call did not answer with success (an error, an unverified check,
// a blocked call, or no answer at all) it calls the same write again,
// with the same arguments; once one answered, it ends naming the
// confirmation that answer claimed. It never gives up by itself: the
// run's limits and ladder decide when it stops.
func bookingScript(req openai.ChatCompletionRequest) scriptedmodel.Turn {
	fields := strings.Fields(scriptedmodel.Task(req))
	tool := fields[len(fields)-1]
	for _, r := range scriptedmodel.LastToolResults(req) {
		if r.Name != tool || r.IsError() {
			continue
		}
		var claimed struct{ Room, Confirmation string }
		if json.Unmarshal([]byte(r.Content), &claimed) == nil && claimed.Confirmation != "" {
			return scriptedmodel.CallTurn("final_output", map[string]any{"room": claimed.Room, "confirmation": claimed.Confirmation})
		}
	}
	return scriptedmodel.CallTurn(tool, map[string]any{"room": bookRoom})
}
