package config

import "time"

// Stall bounds the silence of a streamed model reply: no byte of its body
// FirstByte after the request was sent, or Idle after the last byte, and
// the worker cuts the request and it is tried again (class stalled). A
// whole (not streamed) reply has only the model's timeout.
type Stall struct {
	FirstByte Duration `yaml:"first_byte" json:"first_byte,omitempty"`
	Idle      Duration `yaml:"idle" json:"idle,omitempty"`
}

// The stall deadlines of a model that writes none: a provider's first
// byte takes seconds, even for a long prompt, and a reply that is being
// written sends a chunk at least every few seconds.
const (
	DefaultStallFirstByte = Duration(60 * time.Second)
	DefaultStallIdle      = Duration(30 * time.Second)
)

// StallBounds are the model's stall deadlines, the defaults where it
// writes none (validation refuses a written 0, so a 0 here is left out).
func (m Model) StallBounds() Stall {
	s := Stall{FirstByte: DefaultStallFirstByte, Idle: DefaultStallIdle}
	if w := m.Stall; w != nil && w.FirstByte > 0 {
		s.FirstByte = w.FirstByte
	}
	if w := m.Stall; w != nil && w.Idle > 0 {
		s.Idle = w.Idle
	}
	return s
}

// RequestTimeout bounds one request to the model: its timeout, else
// DefaultModelTimeout.
func (m Model) RequestTimeout() time.Duration {
	if m.Timeout > 0 {
		return m.Timeout.D()
	}
	return DefaultModelTimeout.D()
}
