package console

import (
	"encoding/json"
	"net/url"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/signals"
)

// The run page of a conversation (docs/conversations.md, "In the
// console") shows the exchange as a chat: the user's messages (the task
// nodes) and the agent's answers (the output nodes) in trace order, the
// phase, and a message box (the message action, actions.go). Its script,
// static/chat.js, follows the run's events from what the page was served
// with and adds what comes next; it words a node as chatMessageOf does.

// chatView is a conversation's exchange as its run page shows it.
type chatView struct {
	Base     string
	Agent    string // the agent answering now: who writes the reply in progress
	Messages []chatMessage
	Phase    signals.Phase
	// Ended: the run is over, so the message box is closed.
	Ended bool
	// Events is the run's event stream, after the last event of what the
	// page shows (?after=), so the script is told only what is new.
	Events string
}

// chatMessage is one message of the chat: a user's (a task node) or an
// answer (an output node).
type chatMessage struct {
	Node string
	Role string // "user" or "agent"
	Who  string // the message's by, else "user"; an answer's agent
	Text string
	JSON bool // Text is an answer's object, as indented JSON
}

// phaseLabels say a run's phase in a chat's words. The page hands them to
// its script (data-phase-labels), so they are written once.
var phaseLabels = map[signals.Phase]string{
	signals.PhaseRunning:          "working…",
	signals.PhaseAwaitingApproval: "waiting for a call's approval",
	signals.PhaseAwaitingHuman:    "waiting for a person",
	signals.PhaseAwaitingUser:     "waiting for you",
	signals.PhaseWaitingOutage:    "a tool or the model is down: waiting it out",
	signals.PhaseCompleted:        "the conversation has ended",
	signals.PhaseStopped:          "the run stopped",
}

// PhaseLabel is the chat's phase in words.
func (c chatView) PhaseLabel() string { return phaseLabel(c.Phase) }

// phaseLabelsJSON is phaseLabels as JSON, written once: every chat page
// hands the same to its script.
var phaseLabelsJSON = func() string {
	b, _ := json.Marshal(phaseLabels)
	return string(b)
}()

// Labels are phaseLabels as JSON, for the script.
func (c chatView) Labels() string { return phaseLabelsJSON }

func phaseLabel(p signals.Phase) string {
	if l, ok := phaseLabels[p]; ok {
		return l
	}
	return string(p)
}

// chatOf is the chat of a conversation's run page; nil for a run that is
// not one.
func chatOf(v runView) *chatView {
	if !isConversation(v.Status, v.Trace) {
		return nil
	}
	phase := v.Status.Phase
	c := &chatView{Base: v.Base, Agent: v.Status.Agent, Phase: phase,
		Ended: phase == signals.PhaseCompleted || phase == signals.PhaseStopped, Events: v.Base + "/events"}
	for _, n := range v.Trace.Nodes {
		if m, ok := chatMessageOf(n); ok {
			c.Messages = append(c.Messages, m)
		}
	}
	// The page shows what every event so far says: the stream goes on
	// after the last of them.
	if events, _ := feed.Next(feed.Cursor{}, v.Trace.Nodes, phase); len(events) > 0 {
		c.Events += "?after=" + url.QueryEscape(events[len(events)-1].ID)
	}
	return c
}

// isConversation says whether a run is a conversation: its status says
// so; a worker whose status does not say it (an earlier release) is known
// by the run waiting for a message, or by a message in its trace (a task
// node after the first).
func isConversation(st signals.Status, tr signals.Trace) bool {
	if st.Conversation || st.Phase == signals.PhaseAwaitingUser {
		return true
	}
	tasks := 0
	for _, n := range tr.Nodes {
		if n.Kind == signals.KindTask {
			tasks++
		}
	}
	return tasks > 1
}

// chatMessageOf is what node n says in the chat, if anything: a task node
// that was said (not the wait for a message, nor one that never came),
// or an answer the run kept (not one refused or invalidated).
func chatMessageOf(n signals.Node) (chatMessage, bool) {
	if n.Status != signals.StatusCompleted {
		return chatMessage{}, false
	}
	m := chatMessage{Node: n.ID}
	switch n.Kind {
	case signals.KindTask:
		text, by := taskMessage(n.Args)
		m.Role, m.Who, m.Text = "user", firstOf(by, "user"), text
	case signals.KindOutput:
		m.Role, m.Who = "agent", n.Agent
		if json.Unmarshal(n.Output, &m.Text) != nil {
			m.Text, m.JSON = indentJSON(n.Output), true
		}
	default:
		return chatMessage{}, false
	}
	return m, true
}

// taskMessage is a task node's text: a conversation's message (with its
// by, when known), or the run's task with its input, as the model reads
// it.
func taskMessage(args json.RawMessage) (text, by string) {
	var a struct {
		Message *string         `json:"message"`
		By      string          `json:"by"`
		Task    string          `json:"task"`
		Input   json.RawMessage `json:"input"`
	}
	_ = json.Unmarshal(args, &a)
	if a.Message != nil {
		return *a.Message, a.By
	}
	if in := compactJSON(a.Input); in != "" && in != "{}" && in != "null" {
		return a.Task + "\n\nInput: " + in, a.By
	}
	return a.Task, a.By
}
