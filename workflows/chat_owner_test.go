package workflows

import (
	"go/ast"
	"testing"

	"github.com/stretchr/testify/require"
)

// A conversation's state (the run's Turn) is changed by package chat
// alone: no file of workflows/ assigns to it or its fields, counts them,
// calls a method through them or takes their address but chat.go, which
// hands package chat the state (its fields are exported for the run's
// JSON only).
func TestOnlyChatChangesTheTurn(t *testing.T) {
	turn := stateOwner{
		owned:  func(e ast.Expr) string { return reachedThrough(e, map[string]bool{"Turn": true}) },
		wiring: "chat.go",
	}
	require.Empty(t, turn.writes(t), "only package chat changes a conversation's state")
}
