package approvalinbox

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGroupIDIsStableAndTellsToolAndShapeApart(t *testing.T) {
	id := GroupID("pay", "{amount: number}")
	require.Equal(t, id, GroupID("pay", "{amount: number}"))
	require.True(t, ValidGroupID(id), id)
	require.NotEqual(t, id, GroupID("pay", "{amount: string}"))
	require.NotEqual(t, id, GroupID("refund", "{amount: number}"))
	for _, bad := range []string{"", "xyz", id + "0", "zzzzzzzzzz"} {
		require.False(t, ValidGroupID(bad), bad)
	}
}
