package config

import "time"

// A local tool runs as a Temporal local activity: in the workflow worker,
// inside the workflow task that decided the call, so no activity task is
// scheduled, dispatched to a poller and recorded, and the step needs one
// workflow task fewer. What makes that safe is what a local activity
// gives up: it runs again when the workflow task that ran it fails before
// completing, so only tools that read or are idempotent may be local; and
// it holds the workflow task, so its calls are bounded (LocalToolBound,
// past which the call goes on as a normal activity with the tool's whole
// retry policy, under the same idempotency key).

// LocalToolBound bounds a local tool's call, attempts included: a call
// still failing or running past it goes on as a normal activity.
const LocalToolBound = Duration(10 * time.Second)

// RunsLocal says whether the tool's calls run as local activities: those
// of a tool whose local is true (written, or filled for a built-in by
// localBuiltins). A tool that writes, or whose calls wait on its own task
// queue (max_concurrent, rate), never does.
func (t Tool) RunsLocal() bool {
	return t.Local != nil && *t.Local && t.Effect != EffectWrite && !t.Limited()
}

// localBuiltins fills local for the built-ins that leave it out: true for
// one that does not write and does not run long (slow), so the run keeps
// the choice it started with.
func (f *File) localBuiltins(slow func(string) bool) {
	for i := range f.Tools {
		t := &f.Tools[i]
		if t.Builtin == "" || t.Local != nil || t.Effect == EffectWrite || t.Limited() {
			continue
		}
		local := slow == nil || !slow(t.Builtin)
		t.Local = &local
	}
}

// LocalTimeout bounds one attempt of a local call: the tool's own timeout,
// else the bound.
func (t Tool) LocalTimeout() time.Duration {
	d := LocalToolBound.D()
	if t.HTTP != nil && t.HTTP.Timeout > 0 {
		d = min(d, t.HTTP.Timeout.D())
	}
	if t.MCP != nil && t.MCP.Timeout > 0 {
		d = min(d, t.MCP.Timeout.D())
	}
	return d
}

// toolLocal refuses local: true where a local activity would break a
// guarantee: a tool that writes (a repeated call is not safe), one with
// its own task queue, or a timeout over the bound.
func (c *checker) toolLocal(p path, t *Tool) {
	if t.Local == nil || !*t.Local {
		return
	}
	lp := p.key("local")
	switch {
	case t.Effect == EffectWrite:
		c.add(lp, "a tool with effect: write cannot run as a local activity, which runs again when the workflow task that ran it fails: mark it effect: idempotent if a repeated call is safe, or leave local out")
	case t.Limited():
		c.add(lp, "a tool with max_concurrent or rate waits on its own task queue, which a local activity does not: leave one of them out")
	}
	if t.HTTP != nil && t.HTTP.Timeout > LocalToolBound {
		c.add(p.key("http").key("timeout"), "is %s, over the %s a local tool's call may take: shorten it, or leave local out", t.HTTP.Timeout.D(), LocalToolBound.D())
	}
	if t.MCP != nil && t.MCP.Timeout > LocalToolBound {
		c.add(p.key("mcp").key("timeout"), "is %s, over the %s a local tool's call may take: shorten it, or leave local out", t.MCP.Timeout.D(), LocalToolBound.D())
	}
}
