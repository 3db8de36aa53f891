package config

import (
	"slices"
	"strconv"
)

// agents checks the agents, and each agent's references to tools and to
// other agents.
func (c *checker) agents(as []Agent, tools map[string]int) {
	if len(as) == 0 {
		c.add(path{"agents"}, "no agents: define at least one")
	}
	names := map[string]int{}
	for i, a := range as {
		p := path{"agents", i, "name"}
		switch j, dup := names[a.Name]; {
		case a.Name == "":
			c.add(p, "missing: every agent needs a name")
		case a.Name == HandoffHuman || a.Name == HandoffAny:
			c.add(p, "agent name %q is reserved: it is a handoff target of its own", a.Name)
		case dup:
			c.add(p, "duplicate agent name %q (also agents[%d])", a.Name, j)
		default:
			names[a.Name] = i
		}
	}
	for i := range as {
		c.agent(path{"agents", i}, &as[i], tools, names)
	}
}

func (c *checker) agent(p path, a *Agent, tools, agents map[string]int) {
	c.oneOf(p.key("kind"), "kind", a.Kind, kinds)
	if a.Tier < 0 {
		c.add(p.key("tier"), "must be at least 0, got %d", a.Tier)
	}
	if a.MaxConcurrent < 0 {
		c.add(p.key("max_concurrent"), "must be at least 0 (0: no limit), got %d", a.MaxConcurrent)
	}
	for j, t := range a.Tools {
		if server, tool, ok := ParseMCPRef(t); ok {
			c.mcpRef(p.key("tools").idx(j), server, tool)
			if slices.Index(a.Tools, t) < j {
				c.add(p.key("tools").idx(j), "tool %q is listed twice", t)
			}
			continue
		}
		if _, ok := tools[t]; !ok {
			c.add(p.key("tools").idx(j), "unknown tool %q (known: %s)", t, known(tools))
		} else if slices.Index(a.Tools, t) < j {
			c.add(p.key("tools").idx(j), "tool %q is listed twice", t)
		}
	}
	for j, h := range a.Handoffs {
		if _, ok := agents[h]; !ok && h != HandoffHuman && h != HandoffAny {
			c.add(p.key("handoffs").idx(j), "unknown handoff target %q (known: %s; or %q, %q)", h, known(agents), HandoffHuman, HandoffAny)
		}
	}
	if a.StreamCalls && a.Kind == KindHuman {
		c.add(p.key("stream_calls"), "applies to llm agents: a person (kind: human) never calls a model")
	}
	c.conversation(p, a)
	if a.OutputSchema != nil {
		c.schema(p.key("output_schema"), "agent "+strconv.Quote(a.Name)+" output_schema", a.OutputSchema)
	}
	c.policies(p.key("policies"), &a.Policies)
	if hw := a.Policies.HandoffWhen; hw != nil {
		c.handoffWhen(p.key("policies").key("handoff_when"), hw, a)
	}
	if a.Graph != nil {
		c.graph(p.key("graph"), a.Graph, a.Tools)
	}
}

func (c *checker) policies(p path, pol *Policies) {
	if pol.MaxSteps < 1 {
		c.add(p.key("max_steps"), "must be at least 1, got %d", pol.MaxSteps)
	}
	lp := p.key("loop")
	if pol.Loop.Window < 2 {
		c.add(lp.key("window"), "must be at least 2, got %d", pol.Loop.Window)
	}
	if pol.Loop.Window > MaxLoopWindow {
		c.add(lp.key("window"), "must be at most %d (the detector keeps the window in the run's state), got %d", MaxLoopWindow, pol.Loop.Window)
	}
	if pol.Loop.Repeats < 2 {
		c.add(lp.key("repeats"), "must be at least 2 (one pass is not a loop), got %d", pol.Loop.Repeats)
	}
	if pol.Loop.Window >= 2 && pol.Loop.Repeats >= 2 && pol.Loop.Window < pol.Loop.Repeats {
		c.add(lp.key("window"), "window %d is smaller than repeats %d: no loop could ever be seen", pol.Loop.Window, pol.Loop.Repeats)
	}
	if tw := pol.Loop.TimeWindow; tw != nil {
		c.timeWindow(lp.key("time_window"), tw)
	}
	bp := p.key("breaker")
	if pol.Breaker.Failures < 1 {
		c.add(bp.key("failures"), "must be at least 1, got %d", pol.Breaker.Failures)
	}
	if pol.Breaker.Cooldown <= 0 {
		c.add(bp.key("cooldown"), "must be > 0, got %s", pol.Breaker.Cooldown.D())
	}
	ep := p.key("escalation")
	if len(pol.Escalation) == 0 {
		c.add(ep, "no rungs: list at least one (e.g. [stop])")
	}
	for j, r := range pol.Escalation {
		if !slices.Contains(rungs, r) {
			c.oneOf(ep.idx(j), "escalation rung", r, rungs)
		} else if slices.Index(pol.Escalation, r) < j {
			c.add(ep.idx(j), "rung %q is listed twice", r)
		}
	}
	if pol.HumanTimeout <= 0 {
		c.add(p.key("human_timeout"), "must be > 0, got %s", pol.HumanTimeout.D())
	}
	if pol.Repair.MaxAttempts < 0 {
		c.add(p.key("repair").key("max_attempts"), "must be at least 0 (0: no repair), got %d", pol.Repair.MaxAttempts)
	}
	// Temporal refuses more than 2,000 pending activities per workflow.
	limits := p.key("limits")
	if n := pol.Limits.CallsPerReply; n < 1 || n > 1000 {
		c.add(limits.key("calls_per_reply"), "must be between 1 and 1000, got %d", n)
	}
	if n := pol.Limits.CallsInFlight; n < 1 || n > 1000 {
		c.add(limits.key("calls_in_flight"), "must be between 1 and 1000, got %d", n)
	}
}

// handoffWhen checks the rules that hand a run over by themselves. They
// hand over to the agent's handoffs, so an agent without any is refused,
// as is a person's agent: a person hands over themselves.
func (c *checker) handoffWhen(p path, hw *HandoffWhen, a *Agent) {
	switch {
	case a.Kind == KindHuman:
		c.add(p, "handoff_when applies to llm agents: a person (kind: human) hands over themselves")
	case len(a.Handoffs) == 0:
		c.add(p, "handoff_when needs handoffs: name the agents it may hand over to")
	}
	if hw.ToolFailures < 0 {
		c.add(p.key("tool_failures"), "must be at least 0 (0: off), got %d", hw.ToolFailures)
	}
	if hw.StepsWithoutProgress < 0 {
		c.add(p.key("steps_without_progress"), "must be at least 0 (0: off), got %d", hw.StepsWithoutProgress)
	}
	if hw.UserAsks != "" {
		c.regex(p.key("user_asks"), hw.UserAsks)
	}
}

// timeWindow checks policies.loop.time_window: visits and within in range.
func (c *checker) timeWindow(p path, tw *TimeWindow) {
	if tw.Visits < 2 || tw.Visits > MaxTimeWindowVisits {
		c.add(p.key("visits"), "must be between 2 and %d (one visit is not a loop; the run keeps that many visit times), got %d", MaxTimeWindowVisits, tw.Visits)
	}
	if tw.Within < MinTimeWindow || tw.Within > MaxTimeWindow {
		c.add(p.key("within"), "must be between %s and %s (workflow time moves once per workflow task), got %s", MinTimeWindow.D(), MaxTimeWindow.D(), tw.Within.D())
	}
}

// conversation checks an agent's conversation and double_text.
func (c *checker) conversation(p path, a *Agent) {
	if a.Conversation == nil {
		if a.DoubleText != "" {
			c.add(p.key("double_text"), "applies to agents with conversation: a run without one takes no message")
		}
		return
	}
	if a.Kind == KindHuman {
		c.add(p.key("conversation"), "applies to llm agents: a person (kind: human) answers replies, not messages")
	}
	if a.Conversation.IdleTimeout <= 0 {
		c.add(p.key("conversation").key("idle_timeout"), "must be > 0, got %s", a.Conversation.IdleTimeout.D())
	}
	c.oneOf(p.key("double_text"), "double_text", a.DoubleText, doubleTexts)
}

var doubleTexts = []string{DoubleTextEnqueue, DoubleTextInterrupt, DoubleTextReject, DoubleTextRollback}
