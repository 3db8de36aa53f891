package workflows

import "fmt"

// An agent with policies.context keeps its conversation inside the
// model's token window: package model decides, from the prompt's recorded
// count, what to clear (model/context.go), and the conversation reads a
// cleared result as this note; the trace keeps every result whole.

// clearedResult stands in the conversation for a cleared result.
func clearedResult(nodeID string) string {
	return fmt.Sprintf("[result of %s cleared: ask for it again if needed]", nodeID)
}
