package config

import (
	"slices"
	"time"

	"go.yaml.in/yaml/v3"
)

// What an approval's deadline decides when no one answered in time.
const (
	ThenReject   = "reject"   // the call does not run (the default)
	ThenApprove  = "approve"  // the call runs, approved by the deadline
	ThenEscalate = "escalate" // the next group in by: is asked, with a whole timeout
)

var thens = []string{ThenReject, ThenApprove, ThenEscalate}

// Deadline is how long a call waits for an approval decision and what
// the deadline decides then (approval: {timeout: 4h, then: approve}).
// Its zero value is no deadline of the approval's own: the agent's
// policies.human_timeout, then the call is refused.
type Deadline struct {
	Timeout Duration
	Then    string
}

// Bounded: the approval has a timeout of its own.
func (d Deadline) Bounded() bool { return d.Timeout > 0 }

// Decides is what the deadline decides: Then, or reject when unwritten.
func (d Deadline) Decides() string {
	if d.Then == "" {
		return ThenReject
	}
	return d.Then
}

// read reads key (timeout or then) of approval's mapping form.
func (d *Deadline) read(key string, v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode {
		return typeError(v, "invalid approval.%s: got %s", key, v.ShortTag())
	}
	if key == "then" {
		d.Then = v.Value
		return nil
	}
	t, err := time.ParseDuration(v.Value)
	switch {
	case err != nil:
		return typeError(v, "invalid approval.timeout %q: want a duration such as 30m or 4h", v.Value)
	case t <= 0:
		return typeError(v, "approval.timeout must be more than 0 (a duration such as 30m or 4h)")
	}
	d.Timeout = Duration(t)
	return nil
}

// write adds the deadline's keys that are set to m.
func (d Deadline) write(m map[string]any) {
	if d.Timeout > 0 {
		m["timeout"] = d.Timeout.D().String()
	}
	if d.Then != "" {
		m["then"] = d.Then
	}
}

// deadline reports what is wrong with the deadline of approval a at p.
func (c *checker) deadline(p path, a Approval) {
	d := a.Deadline
	switch {
	case d.Then == "":
	case !slices.Contains(thens, d.Then):
		c.oneOf(p.key("then"), "approval.then", d.Then, thens)
	case !d.Bounded():
		c.add(p.key("then"), "approval.then needs approval.timeout (how long the call waits before then decides)")
	case d.Then == ThenEscalate && !a.Named():
		c.add(p.key("then"), "then: escalate needs by: (groups, in escalation order)")
	case d.Then == ThenEscalate && len(a.Groups()) < 2:
		c.add(p.key("then"), "then: escalate needs two groups or more in by: (%s alone has no one to escalate to); or then: reject", a.Groups()[0])
	}
}
