package workflows

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/policies"
	"github.com/unstuck-dev/unstuck/refs"
	"github.com/unstuck-dev/unstuck/signals"
)

// HandoffContextVersion is the version of HandoffContext's shape.
const HandoffContextVersion = 1

// HandoffContext is what a run hands to the agent that takes it over (seed
// 004's AgentContext): who and what it is about, what was said and done,
// and why it is handed over. It is built from the trace, the run's only
// record, so nothing is lost that the trace holds; the conversation is a
// bounded digest of it.
type HandoffContext struct {
	Version         int                  `json:"version"`
	Session         string               `json:"session"` // the workflow id
	User            string               `json:"user,omitempty"`
	InitialQuery    string               `json:"initial_query"`
	CurrentProblem  string               `json:"current_problem"`
	Conversation    []activities.Message `json:"conversation"`
	ReasoningTrace  []ReasoningStep      `json:"reasoning_trace"`
	ToolRecords     []ToolRecord         `json:"tool_records"`
	State           refs.State           `json:"state"`
	Reason          string               `json:"reason"`
	SourceAgent     string               `json:"source_agent"`
	SuggestedAction string               `json:"suggested_next_action,omitempty"`
	Metadata        map[string]any       `json:"metadata"`
	HandoffPath     []string             `json:"handoff_path"`
	// Earlier is the handoff before this one (version handoff-flat): this
	// context's tool records and reasoning are those since it, and the
	// message the target reads joins the chain (expandHandoffContext).
	// The node keeps a reference, not a second copy of every earlier one.
	Earlier string `json:"earlier,omitempty"`
	// EarlierHandoffs and EarlierNotes are filled when the chain is
	// joined (never stored): each earlier handoff's brief, and what the
	// earlier agents were told that is neither a call nor a thought (a
	// person's replies, escalation notes, refusals), oldest first.
	EarlierHandoffs []HandoffBrief `json:"earlier_handoffs,omitempty"`
	EarlierNotes    []EarlierNote  `json:"earlier_notes,omitempty"`
}

// HandoffBrief is an earlier handoff of the chain: who handed over, why,
// and what they said.
type HandoffBrief struct {
	Node            string `json:"node,omitempty"`
	SourceAgent     string `json:"source_agent"`
	Reason          string `json:"reason"`
	Summary         string `json:"summary,omitempty"`
	SuggestedAction string `json:"suggested_next_action,omitempty"`
}

// EarlierNote is a message an earlier agent of the chain read that is not
// a call or a thought: the agent, and the message.
type EarlierNote struct {
	Agent   string `json:"agent"`
	Content string `json:"content"`
}

// ReasoningStep is one model request of the source: what it thought and
// which calls it made.
type ReasoningStep struct {
	Node    string   `json:"node"`
	Step    int      `json:"step"`
	Thought string   `json:"thought,omitempty"`
	Calls   []string `json:"calls,omitempty"`
}

// ToolRecord is one call the source made, with how it ended.
type ToolRecord struct {
	Node    string          `json:"node"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Outcome string          `json:"outcome"` // completed or failed
	Output  json.RawMessage `json:"output,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// maxHandoffConversation bounds the conversation a context carries (the
// rest of the context is bounded by the trace itself); older observations
// are cut first, as for a model request.
const maxHandoffConversation = 256 << 10

// maxToolRecordOutput bounds each tool record's output in the context.
const maxToolRecordOutput = 4 << 10

// newHandoffContext builds the context of a handoff of run (workflow id
// session) from its agent, for the reason, summary and suggested action
// given. flat: a run handed over before does not nest the earlier
// handoff's context in this one's conversation (flatConversation).
func newHandoffContext(run *Run, session, reason, summary, suggested string, flat bool) HandoffContext {
	hc := HandoffContext{
		Version: HandoffContextVersion, Session: session, User: inputUser(run.Input.Input),
		InitialQuery: run.Input.Task, CurrentProblem: summary, State: run.State,
		Reason: reason, SourceAgent: run.Spec.Agent.Name, SuggestedAction: suggested,
		Metadata:       map[string]any{"generation": run.Generation, "steps": run.Step},
		HandoffPath:    run.handoffPath(),
		ReasoningTrace: []ReasoningStep{}, ToolRecords: []ToolRecord{},
	}
	from := 0
	if h := run.lastHandoff(); flat && h >= 0 {
		// What came before the earlier handoff is in its context.
		hc.Earlier, from = run.Nodes[h].ID, h+1
	}
	for i := from; i < len(run.Nodes); i++ {
		n := &run.Nodes[i]
		switch {
		case n.Status == signals.StatusInvalidated:
		case n.Kind == signals.KindRequest && n.Status == signals.StatusCompleted:
			var rec replyRecord
			run.readRecorded(n, "the recorded model reply", n.Output, &rec)
			s := ReasoningStep{Node: n.ID, Step: n.Step, Thought: rec.Content}
			for _, tc := range rec.ToolCalls {
				s.Calls = append(s.Calls, tc.Name)
			}
			hc.ReasoningTrace = append(hc.ReasoningTrace, s)
		case n.Kind == signals.KindCall && (n.Tool == HandoffTool || n.Tool == FinalOutputTool):
			// the engine's own tools: the trace and the reasoning show them
		case n.Kind == signals.KindCall && (n.Status == signals.StatusCompleted || n.Status == signals.StatusFailed):
			r := ToolRecord{Node: n.ID, Tool: n.AskedTool(), Args: n.Args, Outcome: string(n.Status), Error: n.Error}
			if len(n.Output) > maxToolRecordOutput {
				r.Output = mustJSON(fmt.Sprintf("(%d bytes, cut; the trace holds them: node %s)", len(n.Output), n.ID))
			} else {
				r.Output = n.Output
			}
			hc.ToolRecords = append(hc.ToolRecords, r)
		}
	}
	conv := buildConversation(run)[1:] // not the source's instructions
	if flat {
		conv = flatConversation(run, conv)
	}
	fitConversation(conv, maxHandoffConversation)
	hc.Conversation = conv
	return hc
}

// expandHandoffContext joins hc with the chain of earlier contexts its
// Earlier names, oldest first: the tool records and reasoning of the
// whole run, each earlier handoff's brief, and what the earlier agents
// were told besides (a person's replies, escalation notes: the user
// messages of their conversations, past the task and the handoff they
// were given), fitted as one context (fitHandoffContext) with the counts
// of what each link had dropped. A reference the trace does not hold, or
// a cycle, ends the chain.
func expandHandoffContext(run *Run, hc HandoffContext) HandoffContext {
	chain := []HandoffContext{hc}
	nodes := []string{""}
	seen := map[string]bool{}
	for e := hc.Earlier; e != "" && !seen[e]; {
		seen[e] = true
		n := run.node(e)
		var prev HandoffContext
		if n == nil || json.Unmarshal(n.Output, &prev) != nil {
			break
		}
		chain, nodes = append(chain, prev), append(nodes, e)
		e = prev.Earlier
	}
	out := hc
	out.ToolRecords, out.ReasoningTrace, out.Earlier = []ToolRecord{}, []ReasoningStep{}, ""
	out.EarlierHandoffs, out.EarlierNotes = nil, nil
	out.Metadata = maps.Clone(hc.Metadata)
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	}
	dropped := map[string]int{}
	for i := len(chain) - 1; i >= 0; i-- {
		link := chain[i]
		out.ToolRecords = append(out.ToolRecords, link.ToolRecords...)
		out.ReasoningTrace = append(out.ReasoningTrace, link.ReasoningTrace...)
		for _, k := range []string{"tool_records_dropped", "reasoning_steps_dropped"} {
			dropped[k] += asInt(link.Metadata[k])
		}
		if i == 0 {
			continue // this handoff's own conversation is in the context
		}
		out.EarlierHandoffs = append(out.EarlierHandoffs, HandoffBrief{Node: nodes[i], SourceAgent: link.SourceAgent,
			Reason: link.Reason, Summary: link.CurrentProblem, SuggestedAction: link.SuggestedAction})
		for j, m := range link.Conversation {
			if j == 0 || m.Role != "user" || strings.HasPrefix(m.Content, "[unstuck] This task was handed over") {
				continue // the task, and the handoff the link's agent was given
			}
			out.EarlierNotes = append(out.EarlierNotes, EarlierNote{Agent: link.SourceAgent, Content: m.Content})
		}
	}
	for _, k := range []string{"tool_records_dropped", "reasoning_steps_dropped"} {
		if dropped[k] > 0 {
			out.Metadata[k] = dropped[k]
		} else {
			delete(out.Metadata, k)
		}
	}
	return fitHandoffContext(out)
}

// flatConversation is the conversation of a run handed over before
// (conv: the task, the earlier handoff's message, then what followed it)
// with that message replaced by its brief and a reference. The message
// holds the earlier context whole, whose conversation held the one
// before it: nested, a chain of handoffs carried every earlier context
// again in each handoff node (22.9 MB of JSON after 50). What it said is
// not lost: the tool records and the reasoning of the whole run, each
// earlier handoff's brief and what the earlier agents were told besides
// (a person's replies) reach the target, joined by handoffMessage, and
// the trace keeps the earlier context in its node.
func flatConversation(run *Run, conv []activities.Message) []activities.Message {
	h := run.lastHandoff()
	if h < 0 || len(conv) < 2 {
		return conv
	}
	n := &run.Nodes[h]
	var earlier HandoffContext
	run.readRecorded(n, "the recorded handoff context", n.Output, &earlier)
	out := slices.Clone(conv)
	out[1] = activities.Message{Role: "user", Content: earlier.brief() + fmt.Sprintf(
		"\n\nThat handoff's context is not repeated here: the calls and thoughts since the run began are in this context's tool_records and reasoning_trace (with those of node %s's), and the trace keeps it whole.", n.ID)}
	return out
}

// inputUser is who the run is for, when its input says (user or user_id).
func inputUser(input json.RawMessage) string {
	var in map[string]any
	// The input was checked a JSON object when the run started (or an
	// edit changed it); anything else names no user.
	_ = json.Unmarshal(input, &in)
	for _, k := range []string{"user", "user_id"} {
		if s, ok := in[k].(string); ok {
			return s
		}
	}
	return ""
}

// brief is what the agent taking over reads first: who handed the task
// over, why, the summary and the suggested next action.
func (hc HandoffContext) brief() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[unstuck] This task was handed over to you by agent %s (reason: %s).", hc.SourceAgent, hc.Reason)
	if hc.CurrentProblem != "" {
		fmt.Fprintf(&b, "\nSummary: %s", hc.CurrentProblem)
	}
	if hc.SuggestedAction != "" {
		fmt.Fprintf(&b, "\nSuggested next action: %s", hc.SuggestedAction)
	}
	fmt.Fprintf(&b, "\nHandoff path: %s. The conversation so far, the calls made and their results follow.", strings.Join(hc.HandoffPath, " -> "))
	return b.String()
}

// maxHandoffContext bounds a whole handoff context: it is kept in the
// handoff node (so in the carried run) and read by the target's first
// model request.
const maxHandoffContext = 512 << 10

// fitHandoffContext keeps a context within maxHandoffContext. What goes
// first is what the target needs least and the trace keeps anyway: the
// oldest reasoning steps (the source's thoughts, which its conversation
// repeats; the newest step stays), then the oldest tool records (the
// conversation holds what the model read of them), then the State (the
// run keeps it: the target's references read it there), then the
// conversation is cut further, and last the newest step's thought. The
// task, reason, summary, suggested action, source and path are never cut;
// the metadata counts what was dropped.
func fitHandoffContext(hc HandoffContext) HandoffContext {
	over := len(mustJSON(hc)) - maxHandoffContext
	if over <= 0 {
		return hc
	}
	// hc is a copy, but its map and slices are the caller's: what is
	// changed in place (not only resliced) is copied first.
	hc.Metadata = maps.Clone(hc.Metadata)
	if hc.Metadata == nil {
		hc.Metadata = map[string]any{}
	}
	// Each element weighs about its JSON and a comma: drop the oldest
	// until what was dropped covers the excess, and check.
	for over > 0 && len(hc.ReasoningTrace) > 1 {
		n := dropOldest(len(hc.ReasoningTrace)-1, over, func(i int) int { return len(mustJSON(hc.ReasoningTrace[i])) + 1 })
		hc.ReasoningTrace = hc.ReasoningTrace[n:]
		hc.Metadata["reasoning_steps_dropped"] = asInt(hc.Metadata["reasoning_steps_dropped"]) + n
		over = len(mustJSON(hc)) - maxHandoffContext
	}
	for over > 0 && len(hc.EarlierNotes) > 0 {
		n := dropOldest(len(hc.EarlierNotes), over, func(i int) int { return len(mustJSON(hc.EarlierNotes[i])) + 1 })
		hc.EarlierNotes = hc.EarlierNotes[n:]
		hc.Metadata["earlier_notes_dropped"] = asInt(hc.Metadata["earlier_notes_dropped"]) + n
		over = len(mustJSON(hc)) - maxHandoffContext
	}
	for over > 0 && len(hc.ToolRecords) > 0 {
		n := dropOldest(len(hc.ToolRecords), over, func(i int) int { return len(mustJSON(hc.ToolRecords[i])) + 1 })
		hc.ToolRecords = hc.ToolRecords[n:]
		hc.Metadata["tool_records_dropped"] = asInt(hc.Metadata["tool_records_dropped"]) + n
		over = len(mustJSON(hc)) - maxHandoffContext
	}
	if over > 0 {
		hc.State = refs.State{"_unstuck_cut": "the State is not repeated here: the run keeps it, and †state references read it"}
		over = len(mustJSON(hc)) - maxHandoffContext
	}
	if over > 0 && len(hc.Conversation) > 1 {
		// The task opens the conversation: what follows it is cut.
		hc.Conversation = slices.Clone(hc.Conversation)
		rest := hc.Conversation[1:]
		size := 0
		for _, m := range rest {
			size += messageSize(m)
		}
		fitConversation(rest, max(0, size-over))
		over = len(mustJSON(hc)) - maxHandoffContext
	}
	if last := len(hc.ReasoningTrace) - 1; over > 0 && last >= 0 {
		hc.ReasoningTrace = slices.Clone(hc.ReasoningTrace)
		s := &hc.ReasoningTrace[last]
		keep := policies.CutText(s.Thought, max(0, len(s.Thought)-over-200))
		s.Thought = keep + fmt.Sprintf(" [unstuck: cut from %d bytes; the trace holds it whole: node %s]", len(s.Thought), s.Node)
	}
	return hc
}

// dropOldest is how many of the oldest of n elements to drop so that
// their weights cover over (at least one, at most n).
func dropOldest(n, over int, weight func(int) int) int {
	drop := 0
	for drop < n && (over > 0 || drop == 0) {
		over -= weight(drop)
		drop++
	}
	return drop
}

// asInt reads a count of the metadata: an int, or a number as decoded
// from a stored context's JSON.
func asInt(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case float64:
		return int(n)
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}

// handoffMessage is what the agent a run was handed to reads of the
// handoff: the brief, then the whole context as JSON, joined with the
// earlier contexts it refers to (cached by node: the node never changes
// once completed, and its output's length guards against an edit).
func handoffMessage(run *Run, n *Node) activities.Message {
	key := fmt.Sprintf("%s/%d", n.ID, len(n.Output))
	if m, ok := run.handoffMessages[key]; ok {
		return m
	}
	var hc HandoffContext
	if err := decodeRecorded(n, "the recorded handoff context", n.Output, &hc); err != nil {
		if run.undecoded == nil {
			run.undecoded = err
		}
		return activities.Message{Role: "user", Content: string(n.Output)} // not cached: the run stops on it
	}
	body := n.Output
	if hc.Earlier != "" {
		body = mustJSON(expandHandoffContext(run, hc))
	}
	m := activities.Message{Role: "user", Content: hc.brief() + "\n\nThe handoff context (JSON: conversation, reasoning_trace, tool_records, state):\n" + string(body)}
	if run.handoffMessages == nil {
		run.handoffMessages = map[string]activities.Message{}
	}
	run.handoffMessages[key] = m
	return m
}
