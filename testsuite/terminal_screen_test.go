package testsuite

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// rendered is what a terminal shows (its lines, scrolled back included)
// after it wrote out, for the controls a line editor uses: carriage
// return, new line, backspace, cursor moves (CSI n A, B, C, D) and
// erasing (CSI K, CSI J). A line is cut where it was erased; other
// controls are ignored. Lines are not
// wrapped: the tests write lines narrower than the terminal.
func rendered(out string) string {
	lines := [][]rune{nil}
	row, col := 0, 0
	rs := []rune(out)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\r':
			col = 0
		case r == '\n':
			row++
			for len(lines) <= row {
				lines = append(lines, nil)
			}
		case r == '\b':
			col = max(col-1, 0)
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[':
			j := i + 2
			for j < len(rs) && (rs[j] >= '0' && rs[j] <= '9' || rs[j] == ';' || rs[j] == '?') {
				j++
			}
			if j == len(rs) {
				break
			}
			n, err := strconv.Atoi(string(rs[i+2 : j]))
			if err != nil {
				n = 0
			}
			step := max(n, 1)
			switch rs[j] {
			case 'A':
				row = max(row-step, 0)
			case 'B':
				row += step
				for len(lines) <= row {
					lines = append(lines, nil)
				}
			case 'C':
				col += step
			case 'D':
				col = max(col-step, 0)
			case 'K':
				if n == 2 {
					lines[row] = nil
				} else if col < len(lines[row]) {
					lines[row] = lines[row][:col]
				}
			case 'J':
				if col < len(lines[row]) {
					lines[row] = lines[row][:col]
				}
				lines = lines[:row+1]
			}
			i = j
		case r < 0x20:
		default:
			for len(lines[row]) <= col {
				lines[row] = append(lines[row], ' ')
			}
			lines[row][col] = r
			col++
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(string(l))
	}
	return b.String()
}

// The renderer shows a line editor's redraws as the terminal does: a
// line written above the prompt pushes it down with what was typed.
func TestRenderedTerminal(t *testing.T) {
	out := "hello\r\nyou> and a sec\x1b[14D\x1b[Kagent> one\r\nyou> and a sec" + "ond\r\n\x1b[?2004h"
	require.Equal(t, "hello\nagent> one\nyou> and a second\n", rendered(out))
	require.Equal(t, "ab\nc", rendered("abX\bX\b\x1b[K\r\nc\x1b[2A"+"\x1b[1B"))
}
