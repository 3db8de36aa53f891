package signals

import (
	"fmt"
	"time"
)

// Describe says the outage as every client shows it: what is down, since
// when and for how long at now, and when the run tries it again, e.g.
// "book_flight down since 2026-12-07T09:30:00Z (4m12s), next probe
// 2026-12-07T09:34:30Z (in 18s)". Times are UTC, as the worker records
// them; a client clock behind the worker's never reads as a negative wait.
func (o OutageStatus) Describe(now time.Time) string {
	s := fmt.Sprintf("%s down since %s (%s)", o.Of, stamp(o.Since), max(now.Sub(o.Since), 0).Round(time.Second))
	if o.NextProbe.IsZero() {
		return s
	}
	s += ", next probe " + stamp(o.NextProbe)
	if in := o.NextProbe.Sub(now).Round(time.Second); in > 0 {
		s += fmt.Sprintf(" (in %s)", in)
	}
	return s
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
