package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A volatile entry is a field name, or a JSON pointer read by RFC 6901.
func TestVolatileField(t *testing.T) {
	cases := []struct {
		entry   string
		tokens  []string
		pointer bool
	}{
		{"request_id", nil, false},
		{"/sent_at", []string{"sent_at"}, true},
		{"/meta/trace/0", []string{"meta", "trace", "0"}, true},
		{"/a~1b/c~0d", []string{"a/b", "c~d"}, true},
		{"/", []string{""}, true},
	}
	for _, tc := range cases {
		tokens, pointer, err := VolatileField(tc.entry)
		require.NoError(t, err, tc.entry)
		require.Equal(t, tc.tokens, tokens, tc.entry)
		require.Equal(t, tc.pointer, pointer, tc.entry)
	}
	for _, bad := range []string{"", "/a~2", "/a~"} {
		_, _, err := VolatileField(bad)
		require.Error(t, err, bad)
	}
}

func TestValidateVolatile(t *testing.T) {
	runProblems(t, []problemCase{
		{"empty entry", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			`    volatile: [request_id, ""]`), 5, "tools[0].volatile[1]", "empty: write a field name"},
		{"bad pointer", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    volatile: [/meta/x~2]"), 5, "tools[0].volatile[0]", `JSON pointer "/meta/x~2": ~ must be followed by 0`},
		{"twice", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    volatile: [sent_at, /x, sent_at]"), 5, "tools[0].volatile[2]", `"sent_at" is listed twice (also volatile[0])`},
		{"not a list", withTool(
			"  - name: a",
			"    http: {url: http://t/a}",
			"    volatile: sent_at"), 5, "tools[0].volatile", ""},
	})
	f, err := parse(withTool(
		"  - name: a",
		"    http: {url: http://t/a}",
		"    volatile: [sent_at, /meta/id]"))
	require.NoError(t, err)
	require.Equal(t, []string{"sent_at", "/meta/id"}, f.Tools[0].Volatile)
}
