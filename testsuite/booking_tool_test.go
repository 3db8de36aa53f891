package testsuite

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
)

// bookToolYAML is the config of the approval tests' write tool: book(seat),
// served at url/book, waiting for a person's approval before every call.
func bookToolYAML(url string) string {
	return `
  - name: book
    http: { url: "` + url + `/book" }
    effect: write
    approval: always
    parameters: { type: object, required: [seat], properties: { seat: { type: string } } }`
}

// newBookingServer is a tool server that answers every call with
// {"<key>": <the call's arguments>}.
func newBookingServer(t *testing.T, key string) *toolServer {
	return newToolServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		var a map[string]any
		_ = json.NewDecoder(r.Body).Decode(&a)
		writeJSON(w, 200, map[string]any{key: a})
	})
}

// bookerStack is a stack whose agent booker books seat 12A with the tool
// at toolsURL (waiting for a person's approval), then gives its output;
// model names the scripted model.
func bookerStack(t *testing.T, model, toolsURL string) *stack {
	t.Helper()
	cfg := `
model: { base_url: "{{MODEL}}", name: ` + model + ` }
tools:` + bookToolYAML(toolsURL) + `
agents:
  - { name: booker, instructions: Book., tools: [book] }
`
	return newStack(t, cfg, map[string]scriptedmodel.Script{model: scriptedmodel.Sequence(
		scriptedmodel.CallTurn("book", map[string]any{"seat": "12A"}),
		scriptedmodel.CallTurn("final_output", map[string]any{"done": true}),
	)})
}
