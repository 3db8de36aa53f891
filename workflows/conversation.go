package workflows

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/handoff"
)

// buildConversation derives the chat messages of a run from its trace: the
// instructions, the task, then each completed request's reply followed by
// one tool message per call (its result, or a {call, error} message), and
// refused outputs as user messages. The trace is the only record; this is
// a view of it.
func buildConversation(run *Run) []activities.Message {
	msgs := []activities.Message{{Role: "system", Content: systemPrompt(run)}}
	from := 0
	if h := run.lastHandoff(); h >= 0 {
		// The agent the run was handed to reads the task (a
		// conversation's: the turn's message) and the handoff context in
		// place of what came before.
		msgs = append(msgs, userMessage(turnTask(run)), handoffMessage(run, &run.Nodes[h]))
		from = h + 1
	}
	if s := run.lastSummary(from); s >= 0 {
		// The turns a summary covers give way to it (policies.context).
		if from == 0 {
			msgs = append(msgs, userMessage(taskText(run)))
		}
		msgs = append(msgs, summaryMessage(run, &run.Nodes[s]))
		from = max(from, run.firstAfter(summaryThrough(&run.Nodes[s])))
	}
	gap := run.firstAfterArchive()
	for i := from; i < len(run.Nodes); i++ {
		if i == gap {
			msgs = append(msgs, archivedMessage(run.Archived))
		}
		if m, ok := nodeMessage(run, &run.Nodes[i]); ok {
			msgs = append(msgs, m)
		}
	}
	if run.Fitted {
		fitConversation(msgs, conversationBudget(run))
	}
	return msgs
}

// conversationBudget is what the messages of a model request may take:
// Temporal's payload limit, less the tool definitions and a margin for
// JSON's escaping and the request's other fields.
func conversationBudget(run *Run) int {
	return config.MaxPayloadBytes - len(mustJSON(toolDefs(run))) - 128<<10
}

// overBudget says whether a conversation's JSON is over budget. Encoding
// the whole conversation at every request would make each step cost the
// length of the run, so it is encoded only when a cheap upper bound (every
// byte escaped to at most six, plus each message's own fields) could be
// over.
func overBudget(msgs []activities.Message, budget int) bool {
	const escapeMax, perMessage, perCall = 6, 256, 128
	bound := 0
	for _, m := range msgs {
		bound += escapeMax*(messageSize(m)+len(m.ToolCallID)+len(m.Role)) + perMessage
		for _, tc := range m.ToolCalls {
			bound += escapeMax*(len(tc.ID)+len(tc.Name)) + perCall
		}
	}
	if bound <= budget {
		return false
	}
	return len(mustJSON(msgs)) > budget
}

// fitConversation cuts the oldest observations (tool results, notes) so
// the conversation fits in budget (policies.FitMessages), each with a
// marker; the instructions, the task, the model's own replies and the last
// step are cut only if they alone are too large.
func fitConversation(msgs []activities.Message, budget int) {
	sizes := make([]int, len(msgs))
	protected := make([]bool, len(msgs))
	last := 0 // the last step: from the model's last reply on
	for i, m := range msgs {
		sizes[i] = messageSize(m)
		protected[i] = m.Role == "system" || m.Role == "assistant"
		if m.Role == "assistant" {
			last = i
		}
	}
	for i, m := range msgs {
		if m.Role == "user" { // the task is the first user message
			protected[i] = true
			break
		}
	}
	for i := last; i < len(msgs) && last > 0; i++ {
		protected[i] = true
	}
	keep := policies.FitMessages(sizes, protected, budget)
	for i := range msgs {
		if keep[i] < sizes[i] {
			cutMessage(&msgs[i], keep[i])
		}
	}
}

// messageSize is what a message weighs: its text and its calls' arguments.
func messageSize(m activities.Message) int {
	n := len(m.Content)
	for _, tc := range m.ToolCalls {
		n += len(tc.Args)
	}
	return n
}

// cutMessage cuts a message down to about keep bytes, with a marker: large
// call arguments first (replaced by a JSON note of their size, so they stay
// JSON), then the text.
func cutMessage(m *activities.Message, keep int) {
	size := messageSize(*m)
	if len(m.ToolCalls) > 0 {
		calls := append([]activities.ToolCall(nil), m.ToolCalls...)
		for i := range calls {
			if size <= keep {
				break
			}
			if n := len(calls[i].Args); n > 1<<10 {
				calls[i].Args = string(mustJSON(map[string]any{"_unstuck_cut": fmt.Sprintf("%d bytes of arguments cut to keep the request under Temporal's payload limit", n)}))
				size -= n - len(calls[i].Args)
			}
		}
		m.ToolCalls = calls
	}
	if size > keep {
		cut := size - keep
		m.Content = policies.CutText(m.Content, len(m.Content)-cut) +
			fmt.Sprintf("\n[unstuck: %d bytes of this were cut to keep the request under Temporal's payload limit]", min(cut, len(m.Content)))
	}
}

// nodeMessage is what the model reads of one trace node, if anything.
func nodeMessage(run *Run, n *Node) (activities.Message, bool) {
	switch n.Kind {
	case signals.KindTask:
		if n.Status != signals.StatusCompleted {
			return activities.Message{}, false // a conversation's wait for a message
		}
		return userMessage(messageText(run, n)), true
	case signals.KindRequest:
		if n.Status != signals.StatusCompleted {
			return activities.Message{}, false
		}
		var rec replyRecord
		run.readRecorded(n, "the recorded model reply", n.Output, &rec)
		return activities.AssistantMessage(rec.Content, rec.Refusal, rec.ToolCalls), true
	case signals.KindCall:
		// A read-back (check_of) is the engine's call, not the model's: the
		// model reads its verdict in the call it checked.
		if (n.Status != signals.StatusCompleted && n.Status != signals.StatusFailed) || n.Superseded || n.CheckOf != "" {
			return activities.Message{}, false
		}
		if n.ModelCallID != "" && n.Step < run.ClearedBefore {
			return activities.Message{Role: "tool", ToolCallID: n.ModelCallID, Content: clearedResult(n.ID)}, true
		}
		return callMessage(n), true
	case signals.KindHuman:
		if n.Status != signals.StatusCompleted {
			return activities.Message{}, false
		}
		var reply signals.ReplyRequest
		run.readRecorded(n, "the recorded reply of a person", n.Output, &reply)
		text := "A person replied: " + reply.Text
		if len(reply.Output) > 0 {
			text += "\nOutput: " + string(reply.Output)
		}
		return userMessage(text), true
	case signals.KindEscalation:
		// A rollback keeps its escalations valid (the model reads why it
		// went back); one an edit invalidated is no longer so, and the calls
		// the edit runs again come after it in the trace.
		if n.GraphNode != "" || len(n.Output) == 0 || n.Status == signals.StatusInvalidated {
			return activities.Message{}, false
		}
		var text string
		run.readRecorded(n, "the escalation's note", n.Output, &text)
		return userMessage("[unstuck] " + text), true
	case signals.KindOutput:
		if n.Status != signals.StatusFailed {
			return activities.Message{}, false
		}
		return userMessage(string(mustJSON(map[string]any{
			"call": map[string]any{"id": n.ID, "tool": "output", "args": n.Output}, "error": n.Error,
		}))), true
	}
	return activities.Message{}, false
}

// callMessage is a settled call as the model reads it: the tool message
// answering its call id, or, for a graph tool node (no model call id), a
// note of what the node did, for the model of a later llm node.
func callMessage(n *Node) activities.Message {
	if n.ModelCallID == "" {
		text := fmt.Sprintf("[graph node %s] %s(%s) returned %s", n.GraphNode, n.AskedTool(), n.Args, n.Output)
		if n.Status == signals.StatusFailed {
			text = fmt.Sprintf("[graph node %s] %s(%s) failed: %s", n.GraphNode, n.AskedTool(), n.Args, n.Error)
		}
		return userMessage(text)
	}
	content := string(n.Output)
	switch {
	case n.Status == signals.StatusFailed:
		content = errorEnvelope(n)
	case n.Tool == FinalOutputTool:
		content = `{"ok": true}`
	case len(n.RanAs) > 0:
		content = string(mustJSON(map[string]any{"changed_by_a_person": n.RanAs, "result": json.RawMessage(n.Output)}))
	}
	return activities.Message{Role: "tool", ToolCallID: n.ModelCallID, Content: clip(content)}
}

func userMessage(text string) activities.Message {
	return activities.Message{Role: "user", Content: text}
}

func systemPrompt(run *Run) string {
	p := run.Spec.Agent.Instructions
	p += fmt.Sprintf("\n\nWhen the task is done, call %s with the result as its arguments", FinalOutputTool)
	if run.outputSchemaDoc() != nil {
		p += " (they must match its parameters schema)"
	}
	p += ", or reply with the result as plain content."
	return p
}

func taskText(run *Run) string {
	t := run.Input.Task
	if len(run.Input.Input) > 0 && string(run.Input.Input) != "{}" && string(run.Input.Input) != "null" {
		t += "\n\nInput: " + string(run.Input.Input)
	}
	return t
}

// outputSchemaDoc is the schema the output must match: the run's own, or
// the agent's.
func (run *Run) outputSchemaDoc() map[string]any {
	if run.Input.OutputSchema != nil {
		return run.Input.OutputSchema
	}
	return run.Spec.Agent.OutputSchema
}

// toolDefs is what the model sees of the agent's tools: each with the
// optional _outputPath argument, plus the reserved final_output.
func toolDefs(run *Run) []activities.ToolDef {
	var defs []activities.ToolDef
	for _, name := range run.Spec.Agent.Tools {
		t, ok := run.Spec.Tool(name)
		if !ok {
			continue
		}
		defs = append(defs, activities.ToolDef{Name: t.Name, Description: t.Description, Parameters: withOutputPath(t.Parameters)})
	}
	if run.offerHandoff {
		defs = append(defs, handoff.ToolDef(run.Spec))
	}
	out := run.outputSchemaDoc()
	if out == nil {
		out = map[string]any{"type": "object"}
	}
	defs = append(defs, activities.ToolDef{
		Name:        FinalOutputTool,
		Description: "Finish the task: the arguments are the final output.",
		Parameters:  mustJSON(out),
	})
	return defs
}

// withOutputPath adds the optional _outputPath string to a tool's schema
// without changing the config's copy.
func withOutputPath(params map[string]any) json.RawMessage {
	schema := maps.Clone(params)
	if schema == nil {
		schema = map[string]any{}
	}
	if _, ok := schema["type"]; !ok {
		schema["type"] = "object"
	}
	props, _ := schema["properties"].(map[string]any)
	props = maps.Clone(props)
	if props == nil {
		props = map[string]any{}
	}
	props[OutputPathArg] = map[string]any{
		"type":        "string",
		"description": "Optional: a " + refs.Prefix + "state.<path> where this call's result is stored, so later calls can pass " + refs.Prefix + "state.<path> (or a || b) as an argument instead of the value.",
	}
	schema["properties"] = props
	return mustJSON(schema)
}

// maxToolMessage bounds what the model reads of one tool result. A result
// may be 1 MiB, more than a model's context and, for a few parallel calls,
// more than Temporal accepts as an activity input. The whole result stays
// in the trace and, with _outputPath, in State for references.
const maxToolMessage = config.MaxToolMessageBytes

func clip(content string) string {
	if len(content) <= maxToolMessage {
		return content
	}
	cut := policies.CutText(content, maxToolMessage)
	return cut + fmt.Sprintf("\n[unstuck: the result is %d bytes; the first %d are shown. Store it with %s and pass %sstate references instead of reading it whole.]",
		len(content), len(cut), OutputPathArg, refs.Prefix)
}

// archivedMessage stands in the conversation where the trace's archived
// part was, so the model knows steps came before the ones it reads.
func archivedMessage(a *Archive) activities.Message {
	return userMessage(fmt.Sprintf("[unstuck] This is a long run: its %d oldest trace nodes (through node %s) are archived "+
		"to keep it within Temporal's limits and are not repeated here. The task and the newest steps are.", a.Nodes, a.Through))
}
