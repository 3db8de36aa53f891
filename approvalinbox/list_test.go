package approvalinbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestACallPastHalfItsWaitIsOverdue(t *testing.T) {
	since := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	c := Call{Since: since, Deadline: since.Add(4 * time.Hour)}
	require.False(t, c.Overdue(since.Add(time.Hour)))
	require.True(t, c.Overdue(since.Add(2*time.Hour+time.Second)))
	require.False(t, Call{Since: since}.Overdue(since.Add(100*time.Hour)), "no deadline known: never flagged")
}
