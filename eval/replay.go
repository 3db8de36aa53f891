package eval

import "encoding/json"

// Replay answers one run's tool calls from a case's recording. A call
// made again is answered by the next recorded call of the same key (a
// flaky tool's failure, then its success), the last one from then on.
type Replay struct {
	byKey map[string][]ToolResult
	asked map[string]int
}

// NewReplay is a replay of c's recording, for one run.
func NewReplay(c *Case) *Replay {
	r := &Replay{byKey: map[string][]ToolResult{}, asked: map[string]int{}}
	for _, t := range c.Tools {
		k, err := Key(t.Tool, t.Args)
		if err != nil {
			continue // Load refuses such a case
		}
		r.byKey[k] = append(r.byKey[k], t)
	}
	return r
}

// Answer is the recorded answer to a call of tool with args, and false
// when no call of that tool with those arguments was recorded.
func (r *Replay) Answer(tool string, args json.RawMessage) (ToolResult, bool) {
	k, err := Key(tool, args)
	if err != nil {
		return ToolResult{}, false
	}
	recorded := r.byKey[k]
	if len(recorded) == 0 {
		return ToolResult{}, false
	}
	i := min(r.asked[k], len(recorded)-1)
	r.asked[k]++
	return recorded[i], true
}
