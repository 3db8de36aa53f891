package mcptools

import (
	"strings"
	"sync"
)

// stderrTailSize is how much of a stdio server's stderr is kept: enough for the last few
// lines, which say why a server would not start or why it exited.
const stderrTailSize = 2048

// stderrTail keeps the end of what a server program writes to stderr, to quote it in errors.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// stderrLines is how many of the last stderr lines an error quotes.
const stderrLines = 5

// String is the last lines of the kept stderr, trimmed, or "".
func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return strings.Join(lines[max(0, len(lines)-stderrLines):], "\n")
}
