package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/internal/termtext"
	"github.com/unstuck-dev/unstuck/signals"
)

// chatView writes a conversation's events to a terminal as a chat: the
// user's messages, the agent's replies as they are written, its calls,
// the calls waiting for the user's approval, and a prompt when the run
// waits for the next message.
type chatView struct {
	w io.Writer
	// typed are the messages typed here and not yet seen in the trace:
	// the terminal shows them already.
	typed []string
	// writing is the request node whose reply is being written on the
	// current line ("" when the line is free); written, each request's
	// reply as shown.
	writing string
	written map[string]string
	// lastReply is the text of the last reply shown whole, so the turn's
	// output is not shown twice when it is that text.
	lastReply string
	// waiting is the call waiting for the user's approval, nil if none.
	waiting *signals.Node
	// prompted: the line holds the prompt, and the user has not typed.
	prompted bool
	// phase is the run's phase as last shown ("": not known yet).
	phase signals.Phase
	// live: the terminal keeps the line being typed at the bottom and
	// writes above it (chat_view_live.go), so a reply is written a whole
	// line at a time, of width runes at most. held is what of the reply
	// being written is not on the screen yet, lead what its next line
	// begins with; onScreen: some of it is on the screen.
	live       bool
	width      int
	held, lead string
	onScreen   bool
}

func newChatView(w io.Writer) *chatView {
	return &chatView{w: w, written: map[string]string{}}
}

// show writes one event.
func (v *chatView) show(e feed.Event) {
	switch e.Type {
	case feed.TypeText:
		v.text(*e.Text)
	case feed.TypeNode:
		v.node(*e.Node)
	case feed.TypeApproval:
		n := *e.Node
		v.waiting = &n
		v.endLine()
		fmt.Fprintf(v.w, "  ? %s waits for your approval: type a to approve, r REASON to reject\n", call(n))
	case feed.TypePhase:
		v.phase = e.Phase
		switch {
		case e.Phase == signals.PhaseAwaitingUser && v.waiting == nil && !v.live:
			v.endLine()
			fmt.Fprint(v.w, chatPrompt)
			v.prompted = true
		case e.Phase == signals.PhaseWaitingOutage:
			// The chat would go quiet for minutes: say why.
			v.endLine()
			fmt.Fprintln(v.w, "  (a tool or the model is down: the run waits it out, then goes on)")
		}
	case feed.TypeEnd:
		v.finish()
		fmt.Fprintf(v.w, "(the run ended: %s)\n", termtext.Visible(compactJSON(e.Result)))
	}
}

// text writes a reply as it is written: appended, or again from its
// start when the model writes it again (a retried request). A delta that
// does not continue what was shown is left to the settled node.
func (v *chatView) text(t feed.Text) {
	shown := v.written[t.Node]
	again := t.Offset == 0 && shown != ""
	if !again && t.Offset != len(shown) {
		return
	}
	if again {
		shown = ""
	}
	if v.live {
		v.liveText(t.Node, t.Delta, shown, again)
		v.written[t.Node] = shown + t.Delta
		return
	}
	if v.writing != t.Node {
		v.endLine()
		fmt.Fprint(v.w, "agent> ")
		if shown != "" {
			fmt.Fprint(v.w, "...") // the reply goes on after a line that broke it
		}
		v.writing = t.Node
	}
	if again {
		fmt.Fprint(v.w, "\n(written again)\nagent> ")
	}
	fmt.Fprint(v.w, termtext.Visible(t.Delta))
	v.written[t.Node] = shown + t.Delta
}

func (v *chatView) node(n signals.Node) {
	switch {
	case n.Kind == signals.KindTask && n.Status == signals.StatusCompleted:
		v.message(n)
	case n.Kind == signals.KindRequest && n.Status.Settled():
		v.reply(n)
	case n.Kind == signals.KindCall && n.Status.Settled() && n.Tool != signals.FinalOutputTool && n.Tool != signals.HandoffTool:
		if v.waiting != nil && v.waiting.ID == n.ID {
			v.waiting = nil
		}
		v.endLine()
		if n.Status == signals.StatusCompleted {
			fmt.Fprintf(v.w, "  ✓ %s\n", call(n))
		} else {
			fmt.Fprintf(v.w, "  ✗ %s: %s\n", call(n), termtext.Visible(cmp.Or(n.Error, string(n.Status))))
		}
	case n.Kind == signals.KindHandoff && n.Status == signals.StatusCompleted:
		v.endLine()
		fmt.Fprintf(v.w, "  (handed over from %s to %s)\n", termtext.Visible(n.From), termtext.Visible(n.To))
	case n.Kind == signals.KindOutput && n.Status == signals.StatusCompleted:
		v.output(n)
	}
}

// message shows a user's message, unless it was typed here.
func (v *chatView) message(n signals.Node) {
	var m struct{ Task, Message, By string }
	_ = json.Unmarshal(n.Args, &m)
	text := cmp.Or(m.Message, m.Task)
	if len(v.typed) > 0 && v.typed[0] == text {
		v.typed = v.typed[1:]
		return
	}
	v.endLine()
	fmt.Fprintf(v.w, "%s> %s\n", termtext.Visible(cmp.Or(m.By, "you")), termtext.Visible(text))
}

// reply ends a reply written as it came, with what the stream did not
// tell (on a line of its own, "agent> ...", when another line broke it),
// or shows it whole.
func (v *chatView) reply(n signals.Node) {
	var rec struct {
		Content string `json:"content"`
	}
	_ = json.Unmarshal(n.Output, &rec)
	shown := v.written[n.ID]
	delete(v.written, n.ID)
	if n.Status != signals.StatusCompleted {
		v.cut(n, shown)
		return
	}
	if v.live {
		v.liveReply(n.ID, shown, rec.Content)
		v.lastReply = cmp.Or(rec.Content, v.lastReply)
		return
	}
	switch {
	case shown != "" && strings.HasPrefix(rec.Content, shown):
		if rest := rec.Content[len(shown):]; rest != "" {
			if v.writing != n.ID {
				v.endLine()
				fmt.Fprint(v.w, "agent> ...")
				v.writing = n.ID
			}
			fmt.Fprint(v.w, termtext.Visible(rest))
		}
	case rec.Content != "":
		v.endLine()
		fmt.Fprintf(v.w, "agent> %s", termtext.Visible(rec.Content))
		v.writing = n.ID
	}
	if v.writing == n.ID {
		v.endLine()
	}
	if rec.Content != "" {
		v.lastReply = rec.Content
	}
}

// cut ends a reply the run did not take (a message cut it short, the
// model failed, a rollback invalidated it) with a mark that it was cut,
// and why, when some of it was shown.
func (v *chatView) cut(n signals.Node, shown string) {
	if shown == "" {
		return
	}
	switch {
	case v.live && v.writing == n.ID:
		v.finishReply(" [cut]")
	case v.live:
		v.finishReply("")
		fmt.Fprintln(v.w, "agent> ... [cut]")
	case v.writing == n.ID:
		fmt.Fprintln(v.w, " [cut]")
		v.writing = ""
	default:
		v.endLine()
		fmt.Fprintln(v.w, "agent> ... [cut]")
	}
	if n.Error != "" {
		fmt.Fprintf(v.w, "  (%s)\n", termtext.Visible(n.Error))
	}
}

// output shows a turn's answer, unless it is the reply just shown.
func (v *chatView) output(n signals.Node) {
	var s string
	if json.Unmarshal(n.Output, &s) != nil {
		s = compactJSON(n.Output)
	}
	if s == v.lastReply {
		return
	}
	v.endLine()
	fmt.Fprintf(v.w, "agent> %s\n", termtext.Visible(s))
}

// endLine ends a reply being written on the current line, or the
// prompt nobody answered yet.
func (v *chatView) endLine() {
	if v.live {
		v.liveBreak()
		return
	}
	if v.writing != "" || v.prompted {
		fmt.Fprintln(v.w)
		v.writing, v.prompted = "", false
	}
}

// finish writes what is left of the reply being written and ends its
// line: nothing more comes.
func (v *chatView) finish() {
	if v.live {
		v.finishReply("")
	}
	v.endLine()
}

// typedLine: the user typed a line, so the terminal is on a new one.
func (v *chatView) typedLine() {
	v.prompted = false
	if v.live {
		v.liveBreak() // the terminal wrote the line above the reply's next
	}
}

// echo shows a line typed by a script, not a person, as a terminal would
// have echoed it.
func (v *chatView) echo(line string) {
	if !v.prompted {
		v.endLine()
		fmt.Fprint(v.w, chatPrompt)
	}
	fmt.Fprintln(v.w, termtext.Visible(line))
	v.prompted = false
}

// sent notes a message the run took: when the run was working (or others
// wait before it), it says the message waits its turn; either way the run
// works on what it was sent now.
func (v *chatView) sent(res signals.MessageResult) {
	if v.phase != signals.PhaseAwaitingUser || res.Queued > 1 {
		writing := v.writing != ""
		v.endLine()
		fmt.Fprintf(v.w, "  (queued: %s)\n", queuedNote(res.Queued, writing))
	}
	v.phase = signals.PhaseRunning
}

// queuedNote says when the agent answers a message that waits with
// others (queued of them, this one included): after the reply being
// written (writing), or after the step under way (tools at work).
func queuedNote(queued int, writing bool) string {
	after := "after its current step"
	if writing {
		after = "after the current reply"
	}
	if queued <= 1 {
		return "the agent answers it " + after
	}
	return fmt.Sprintf("%d messages wait; the agent answers them %s", queued, after)
}

// call is a call as the chat shows it: its tool and arguments.
func call(n signals.Node) string {
	return termtext.Visible(strings.TrimSpace(n.Tool + " " + compactJSON(n.Args)))
}
