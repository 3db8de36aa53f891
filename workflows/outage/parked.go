package outage

import (
	"slices"
	"time"

	"github.com/unstuck-dev/unstuck/signals"
)

// Parked are the calls of this generation parked now, each with the
// outage it waits out, in the order they parked.
type Parked struct{ calls []parked }

type parked struct {
	node   string
	status signals.OutageStatus
}

// Park parks call node; first: no other call was parked.
func (p *Parked) Park(node string, s signals.OutageStatus) (first bool) {
	first = len(p.calls) == 0
	p.calls = append(p.calls, parked{node: node, status: s})
	return first
}

// Unpark takes call node off; last: no call is parked now.
func (p *Parked) Unpark(node string) (last bool) {
	p.calls = slices.DeleteFunc(p.calls, func(c parked) bool { return c.node == node })
	return len(p.calls) == 0
}

// Since is when call node began to wait out its outage (ok: it is
// parked).
func (p *Parked) Since(node string) (time.Time, bool) {
	for _, c := range p.calls {
		if c.node == node {
			return c.status.Since, true
		}
	}
	return time.Time{}, false
}

// Of is what call node waits out ("": it is not parked).
func (p *Parked) Of(node string) string {
	for _, c := range p.calls {
		if c.node == node {
			return c.status.Of
		}
	}
	return ""
}

// All are the parked nodes, each with when the run began to wait out
// its outage.
func (p *Parked) All() map[string]time.Time {
	all := make(map[string]time.Time, len(p.calls))
	for _, c := range p.calls {
		all[c.node] = c.status.Since
	}
	return all
}

// Status is the outage the run shows it waits out: the first parked
// call's (nil: none is).
func (p *Parked) Status() *signals.OutageStatus {
	if len(p.calls) == 0 {
		return nil
	}
	s := p.calls[0].status
	return &s
}
