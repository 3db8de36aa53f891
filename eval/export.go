package eval

import (
	"encoding/json"
	"strings"

	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Recording is what an export read of one closed run: its input, how it
// ended, its trace, and the classes of its tools' failures.
type Recording struct {
	WorkflowID string
	Input      workflows.AgentInput
	// Result is the run's result; for a run that stopped itself, its
	// report. Nil when the run ended without one (failed, terminated).
	Result *workflows.AgentResult
	// Status and Error say how a run without a result ended ("failed",
	// "terminated", ...); Status may also override the result's.
	Status, Error string
	Nodes         []signals.Node
	// Classes are the failure classes of the tool activities that failed,
	// by the trace node id of their call (the activity's call id).
	Classes map[string]string
}

// FromRecording is the case of a recorded run: the agent, task, input and
// output schema it was started with, a conversation's later messages,
// every tool call that reached its tool and ended (in trace order,
// invalidated ones included), and its outcome.
func FromRecording(r Recording) *Case {
	c := &Case{
		Name:         CaseName(r.WorkflowID),
		Agent:        r.Input.Agent,
		Task:         r.Input.Task,
		OutputSchema: r.Input.OutputSchema,
		Tools:        []ToolResult{},
	}
	if len(r.Input.Input) > 0 {
		var in map[string]any
		if json.Unmarshal(r.Input.Input, &in) == nil {
			c.Input = in
		}
	}
	for _, n := range r.Nodes {
		if t, ok := toolResult(n, r.Classes); ok {
			c.Tools = append(c.Tools, t)
		}
	}
	c.Messages = messagesOf(r.Nodes)
	o := OutcomeOf(r)
	c.Recorded = &o
	return c
}

// toolResult is a call node as a recorded tool result: only calls of a
// tool (not the engine's final_output and handoff) that completed or
// failed, and were answered by their tool rather than the effect ledger.
// A call a rollback or an edit invalidated after it ended is kept: its
// tool answered it, and a replay making it again (a rolled-back loop) is
// answered the same.
func toolResult(n signals.Node, classes map[string]string) (ToolResult, bool) {
	if n.Kind != signals.KindCall || n.Tool == signals.FinalOutputTool || n.Tool == signals.HandoffTool || n.ReusedFrom != "" {
		return ToolResult{}, false
	}
	t := ToolResult{Tool: n.Tool, Args: decoded(n.Args)}
	if t.Args == nil {
		t.Args = map[string]any{}
	}
	ended := endedAs(n)
	switch {
	case ended == signals.StatusCompleted, ended == signals.StatusFailed && n.Check != nil && len(n.Output) > 0:
		// A call that failed its check (unverified) is recorded as what
		// its tool answered: a replay checks that answer again.
		t.Result = decoded(n.Output)
	case ended == signals.StatusFailed:
		t.Error = &ToolError{Class: toolClass(classes[n.ID]), Message: n.Error}
	default:
		return ToolResult{}, false
	}
	return t, true
}

// endedAs is how a call ended: its status, or for an invalidated call,
// failed when it has an error, completed when it has an output, else ""
// (it was invalidated before it ended).
func endedAs(n signals.Node) signals.NodeStatus {
	if n.Status != signals.StatusInvalidated {
		return n.Status
	}
	switch {
	case n.Error != "":
		return signals.StatusFailed
	case len(n.Output) > 0:
		return signals.StatusCompleted
	}
	return ""
}

// toolClass is the class a recorded failure is given again with: the
// tool's own, transient for a timeout (Temporal retried it as one), and
// persistent when the failure has no class a tool gives (the call never
// reached its tool in this run's history, or the engine refused it).
func toolClass(class string) string {
	switch policies.Class(class) {
	case policies.Transient, policies.InvalidArgs, policies.Persistent, policies.Fatal:
		return class
	case policies.Timeout:
		return string(policies.Transient)
	}
	return string(policies.Persistent)
}

// OutcomeOf is what a recorded run did: its status, output and spend from
// its result, the rungs it climbed, and from its trace the loops it met
// (escalations for a loop), how long they took to give way to progress,
// and the repairs it made, invalidated nodes left out.
func OutcomeOf(r Recording) Outcome {
	o := Outcome{Run: r.WorkflowID, Status: r.Status, Error: r.Error}
	if res := r.Result; res != nil {
		if o.Status == "" {
			o.Status = res.Status
		}
		o.Steps = res.Steps
		if len(res.Output) > 0 {
			o.Output = decoded(res.Output)
		}
		o.spent(res.Spend)
		for _, e := range res.Escalations {
			o.Rungs = append(o.Rungs, e.Action)
		}
	}
	fromTrace := r.Result == nil
	for _, n := range r.Nodes {
		if n.Status == signals.StatusInvalidated {
			continue
		}
		if n.Kind == signals.KindRepair {
			o.Repairs++
		}
		rung, loop := escalationOf(n)
		if loop {
			o.Loops++
		}
		// A run without a result has its rungs only in its trace.
		if fromTrace && rung != "" {
			o.Rungs = append(o.Rungs, rung)
		}
	}
	seconds, stuck := loopsToProgress(r.Nodes)
	o.LoopToProgress, o.LoopsWithoutProgress = meanSeconds(seconds), stuck
	if o.Status == "" {
		o.Status = "unknown"
	}
	return o
}

// spent sets o's spend from s, if any.
func (o *Outcome) spent(s *signals.SpendStatus) {
	if s != nil {
		o.ModelRequests, o.ToolCalls = s.ModelRequests, s.ToolCalls
		o.InputTokens, o.OutputTokens, o.Cost = s.InputTokens, s.OutputTokens, s.Cost
	}
}

// decoded is a JSON value as YAML writes it (a mapping, not bytes); text
// that is not JSON stays text.
func decoded(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return v
}

// CaseName is a workflow id as a case's file name: characters other than
// letters, digits, '.', '-' and '_' become '_', and a name that would be
// hidden or empty is prefixed with "run".
func CaseName(workflowID string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, workflowID)
	if name == "" || strings.HasPrefix(name, ".") {
		name = "run" + name
	}
	return name
}
