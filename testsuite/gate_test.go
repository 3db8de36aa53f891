package testsuite

import (
	"sync"
	"testing"
)

// gate holds whatever waits on it (a scripted model's turn, a tool
// server's handler) until the test opens it, and at the latest when the
// test ends, so nothing is left blocked behind a failed test.
type gate struct {
	ch   chan struct{}
	once sync.Once
}

func newGate(t *testing.T) *gate {
	g := &gate{ch: make(chan struct{})}
	t.Cleanup(g.open)
	return g
}

func (g *gate) wait() { <-g.ch }

func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }
