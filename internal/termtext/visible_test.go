package termtext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestVisible(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain text as it is", "book_flight", "book_flight"},
		{"new lines and tabs stay", "a\tb\nc", "a\tb\nc"},
		{"letters beyond ASCII stay", "café 東京 ✓ \uFFFD", "café 東京 ✓ \uFFFD"},
		{"a title set (OSC, ended by BEL)", "look\x1b]0;pwned\x07", `look\x1b]0;pwned\x07`},
		{"a screen cleared (CSI)", "\x1b[2Jhi", `\x1b[2Jhi`},
		{"the clipboard written (OSC 52, ended by ST)", "\x1b]52;c;aGk=\x1b\\", `\x1b]52;c;aGk=\x1b\`},
		{"a carriage return that would overwrite the line", "ok\rEVIL", `ok\rEVIL`},
		{"a backspace and DEL", "a\bb\x7f", `a\x08b\x7f`},
		{"a NUL", "a\x00b", `a\x00b`},
		{"a C1 CSI as a character", "a\u009b2Jb", `a\u009b2Jb`},
		{"a C1 next line", "a\u0085b", `a\u0085b`},
		{"a right-to-left override", "invoice\u202efdp.exe", `invoice\u202efdp.exe`},
		{"bidi isolates and marks", "\u2066a\u2069\u200e\u200f\u061c", `\u2066a\u2069\u200e\u200f\u061c`},
		{"a byte that is not UTF-8 (a raw CSI)", "a\x9b2Jb", `a\x9b2Jb`},
		{"a cut rune", "caf\xc3", `caf\xc3`},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Visible(tc.in)
			require.Equal(t, tc.want, got)
			requireSafe(t, got)
			require.Equal(t, got, Visible(got), "escaping twice changes nothing")
		})
	}
}

// Nothing Visible returns holds a character a terminal acts on, whatever
// it is given.
func TestVisibleLeavesNoControl(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0x3000; r++ {
		all.WriteRune(r)
	}
	for b := 0x80; b < 0x100; b++ {
		all.WriteByte(byte(b)) // each alone: not UTF-8
	}
	requireSafe(t, Visible(all.String()))
}

func requireSafe(t *testing.T, s string) {
	t.Helper()
	require.True(t, utf8.ValidString(s), "%q is UTF-8", s)
	for _, r := range s {
		require.False(t, actedOn(r), "%q holds %U", s, r)
	}
}

// Text with nothing to escape is not copied.
func TestVisibleKeepsSafeTextAsItIs(t *testing.T) {
	s := strings.Repeat("a reply ✓\n", 100)
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = Visible(s) }))
}

// JSON written out reads back the same, and shows no control either.
func TestVisibleJSON(t *testing.T) {
	v := map[string]any{
		"tool":  "look\x1b]0;pwned\x07",
		"error": "\u009b2J \u202eexe",
		"ok":    "café ✓",
		"n":     3.5,
	}
	raw, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	raw = append(raw, '\r', '\n')
	got := VisibleJSON(string(raw))
	requireSafeJSON(t, got)
	var back map[string]any
	require.NoError(t, json.Unmarshal([]byte(got), &back), got)
	require.Equal(t, v, back)
	require.Contains(t, got, `\u202eexe`)
	require.Equal(t, `"a\ufffdb"`, VisibleJSON("\"a\x9bb\""), "a byte not UTF-8 as a decoder reads it")
	require.Equal(t, `{"ok": true}`, VisibleJSON(`{"ok": true}`))
}

func requireSafeJSON(t *testing.T, s string) {
	t.Helper()
	require.True(t, utf8.ValidString(s), "%q is UTF-8", s)
	for _, r := range s {
		require.False(t, actedOn(r) && r != '\r', "%q holds %U", s, r)
	}
}
