package policies

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Classes are the application error types of tool activities and the
// outcomes of loop signatures: their text is part of recorded histories and
// of user config (errors: class:), so each keeps its exact string.
func TestClassesKeepTheirStrings(t *testing.T) {
	for c, want := range map[Class]string{
		Transient: "transient", InvalidArgs: "invalid_args", Persistent: "persistent", Fatal: "fatal",
		Structural: "structural", Blocked: "blocked", CircuitOpen: "circuit_open", Refused: "refused",
		Canceled: "canceled", Timeout: "timeout", Unclassified: "error",
	} {
		b, err := json.Marshal(c)
		require.NoError(t, err)
		require.Equal(t, `"`+want+`"`, string(b))
		var back Class
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, c, back)
	}
}
