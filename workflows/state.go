package workflows

import (
	"encoding/json"
	"strings"
)

// StatePrefix starts a Variable Reference into the run's State.
const StatePrefix = "†state."

// splitOutputPath takes the engine's _outputPath argument out of a call's
// arguments, so the tool never sees it.
func splitOutputPath(args json.RawMessage) (json.RawMessage, string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args, ""
	}
	raw, ok := m[OutputPathArg]
	if !ok {
		return args, ""
	}
	delete(m, OutputPathArg)
	var path string
	_ = json.Unmarshal(raw, &path)
	return mustJSON(m), path
}

// writeState sets State at a †state.a.b path (last write wins).
func writeState(state map[string]any, ref string, value json.RawMessage) {
	if !strings.HasPrefix(ref, StatePrefix) {
		return
	}
	var v any
	if json.Unmarshal(value, &v) != nil {
		return
	}
	parts := strings.Split(strings.TrimPrefix(ref, StatePrefix), ".")
	cur := state
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[parts[len(parts)-1]] = v
}
