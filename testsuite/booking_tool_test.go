package testsuite

import (
	"encoding/json"
	"net/http"
	"testing"
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
