package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/signals"
)

func TestWaitingMemoListsShapesSmallArgsAndCountsTheRest(t *testing.T) {
	since := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	large := json.RawMessage(fmt.Sprintf(`{"note": %q}`, strings.Repeat("x", maxMemoArgs)))
	pending := []signals.PendingApproval{
		{CallID: "n3", Tool: "pay", Args: json.RawMessage(`{"amount": 5, "to": "acme"}`), WaitingSince: since},
		{CallID: "n4", Tool: "pay", Args: large, WaitingSince: since},
	}
	m := waitingMemo(pending)
	require.Equal(t, signals.WaitingMemo{Calls: []signals.WaitingCall{
		{CallID: "n3", Tool: "pay", Shape: "{amount: number, to: string}", Args: pending[0].Args, Since: since},
		{CallID: "n4", Tool: "pay", Shape: "{note: string}", Since: since},
	}}, m, "large arguments are left out, their shape kept")

	for i := range maxMemoCalls + 3 {
		pending = append(pending, signals.PendingApproval{CallID: fmt.Sprint("n", 10+i), Tool: "pay", Args: json.RawMessage(`{}`)})
	}
	m = waitingMemo(pending)
	require.Len(t, m.Calls, maxMemoCalls)
	require.Equal(t, len(pending)-maxMemoCalls, m.More)
}
