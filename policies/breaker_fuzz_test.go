package policies

import (
	"encoding/json"
	"testing"
	"time"
)

// The breaker never panics, is always in one of its three states, is
// never open or half-open without failures, never lets a call through
// while open before the cooldown, lets one trial at a time through while
// half-open, and survives a JSON round trip after any operation. Each
// byte is an operation (low 3 bits) and a step of the clock (the rest,
// in units of cooldown/8, so cooldowns both pass and do not).
func FuzzBreaker(f *testing.F) {
	f.Add([]byte{1, 1, 1, 0x80, 0, 0, 2}, uint8(3), uint16(1000))
	f.Add([]byte{1, 0xf9, 0, 0, 4, 5, 0xf8, 3, 0, 6}, uint8(1), uint16(0))
	f.Add([]byte{7, 7, 7, 0xff, 0, 1, 0, 5, 0}, uint8(0), uint16(65535))
	f.Fuzz(func(t *testing.T, ops []byte, failures uint8, cooldownMs uint16) {
		cooldown := time.Duration(cooldownMs) * time.Millisecond
		b := NewBreaker(int(failures%10), cooldown)
		now := time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)
		for i, op := range ops {
			now = now.Add(time.Duration(op>>3) * (cooldown/8 + time.Millisecond))
			before := *b
			switch op & 7 {
			case 0:
				allowed := b.Allow(now)
				switch before.State {
				case BreakerOpen:
					if allowed != (now.Sub(before.OpenedAt) >= before.Cooldown) {
						t.Fatalf("op %d: open since %s, cooldown %s: Allow at %s = %v", i, before.OpenedAt, before.Cooldown, now, allowed)
					}
				case BreakerHalfOpen:
					if allowed == before.Trial {
						t.Fatalf("op %d: half-open with trial=%v: Allow = %v", i, before.Trial, allowed)
					}
				default:
					if !allowed {
						t.Fatalf("op %d: closed, Allow = false", i)
					}
				}
			case 1, 2:
				b.Record(now, false)
			case 3:
				b.Record(now, true)
			case 4:
				b.RecordError(now, InvalidArgs)
			case 5:
				b.RecordError(now, Transient)
			case 6:
				b.Trip(now)
			case 7:
				raw, err := json.Marshal(b)
				if err != nil {
					t.Fatal(err)
				}
				var back Breaker
				if err := json.Unmarshal(raw, &back); err != nil {
					t.Fatal(err)
				}
				if !back.OpenedAt.Equal(b.OpenedAt) {
					t.Fatalf("op %d: OpenedAt %s came back %s", i, b.OpenedAt, back.OpenedAt)
				}
				back.OpenedAt = b.OpenedAt
				if back != *b {
					t.Fatalf("op %d: %+v came back %+v", i, *b, back)
				}
				*b = back
			}
			switch b.State {
			case BreakerClosed:
				if b.Trial {
					t.Fatalf("op %d: closed with a trial: %+v", i, *b)
				}
			case BreakerOpen, BreakerHalfOpen:
				if b.Failures < 1 {
					t.Fatalf("op %d: %s without failures: %+v", i, b.State, *b)
				}
			default:
				t.Fatalf("op %d: state %q", i, b.State)
			}
			if b.Failures < 0 || (b.State == BreakerClosed && b.Failures >= b.Threshold) {
				t.Fatalf("op %d: closed at or over the threshold: %+v", i, *b)
			}
		}
	})
}
