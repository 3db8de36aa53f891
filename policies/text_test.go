package policies

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestCutTextNeverSplitsACharacter(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"héllo", 2, "h"}, // é is two bytes: not split
		{"héllo", 3, "hé"},
		{"日本", 5, "日"},
		{"", 3, ""},
	} {
		require.Equal(t, tc.want, CutText(tc.s, tc.n), "CutText(%q, %d)", tc.s, tc.n)
	}
}

// CutText stands for the byte cuts workflows and policies had each of
// their own: on valid UTF-8 (all a run's strings are, decoded from JSON)
// it answers what they did, at every n.
func TestCutTextIsTheCutsItReplaced(t *testing.T) {
	validCut := func(s string, n int) string { // workflows' cutText
		if n >= len(s) {
			return s
		}
		cut := s[:max(n, 0)]
		for !utf8.ValidString(cut) {
			cut = cut[:len(cut)-1]
		}
		return cut
	}
	for _, s := range []string{"plain ascii", "héllo wörld", "日本語のテキスト", "a😀b😀c", ""} {
		for n := -1; n <= len(s)+1; n++ {
			require.Equal(t, validCut(s, n), CutText(s, n), "%q at %d", s, n)
		}
	}
}

func TestClipTextCountsCharactersAndItsMark(t *testing.T) {
	require.Equal(t, "short", ClipText("short", 5))
	require.Equal(t, "shor…", ClipText("shorter", 5))
	require.Equal(t, "日本…", ClipText("日本語のテキスト", 3))
	require.Equal(t, 3, utf8.RuneCountInString(ClipText("日本語のテキスト", 3)))
}

func TestARefusalIsQuotedToTwoHundredBytes(t *testing.T) {
	long := ""
	for range 150 {
		long += "é" // 300 bytes
	}
	na, ok := AnswersNothing("", long, "stop")
	require.True(t, ok)
	require.Contains(t, na.Told, `"`+long[:200]+`..."`)
	na, _ = AnswersNothing("", "no.", "stop")
	require.Contains(t, na.Told, `("no.")`)
}
