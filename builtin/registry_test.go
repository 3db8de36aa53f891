package builtin

import (
	"context"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNamesAreSortedAndComplete(t *testing.T) {
	names := Names()
	require.True(t, sort.StringsAreSorted(names), names)
	require.Equal(t, []string{"book_flight", "echo", "find_hotels", "get_quote", "issue_refund", "lookup_order", "noop", "search_flights", "sleep", "write_report"}, names)
	for _, n := range names {
		require.True(t, Known(n), n)
		_, ok := Lookup(n)
		require.True(t, ok, n)
	}
	require.False(t, Known("no_such_tool"))
	_, ok := Lookup("no_such_tool")
	require.False(t, ok)
}

// Registering a name twice is a programming error caught at start.
func TestRegisterTwicePanics(t *testing.T) {
	require.PanicsWithValue(t, "builtin: tool registered twice: echo", func() { Register("echo", echo) })

	const name = "registry_test_tool"
	fn := func(context.Context, Call) (any, error) { return nil, nil }
	t.Cleanup(func() { delete(registry, name) })
	require.NotPanics(t, func() { Register(name, fn) })
	require.True(t, Known(name))
	require.Panics(t, func() { Register(name, fn) })
}

func TestErrorfBuildsAClassedError(t *testing.T) {
	err := Errorf("persistent", "flight %s sold out", "UA1")
	require.Equal(t, &Error{Class: "persistent", Message: "flight UA1 sold out"}, err)
	require.EqualError(t, err, "flight UA1 sold out")
}
