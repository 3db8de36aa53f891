package edit

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// addEditNode records an edit: who, why, the value before and after, and
// what it invalidated.
func (e *Edits) addEditNode(ctx workflow.Context, edited string, audit signals.Audit, before, after json.RawMessage, invalidated []string) string {
	h := e.host
	out := map[string]any{"invalidated": nonNil(invalidated)}
	h.CountEdit(ctx)
	return h.AddNode(ctx, signals.Node{
		Kind: signals.KindEdit, Status: signals.StatusCompleted, Parents: []string{edited},
		By: h.ShortText(audit.By, 200), Reason: h.ShortText(audit.Reason, 1000), Before: before, After: after,
		Output: h.JSON(out),
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
