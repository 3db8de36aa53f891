package policies

import (
	"fmt"
	"strings"
)

// A model reply with no calls and nothing in it (empty, cut off before it
// said anything, filtered) or a refusal answers nothing. The model is told
// what came back and asked again, and the reply is a failure the loop
// detector counts like a failing call: a model that keeps answering
// nothing makes a no-progress loop, and the escalation ladder takes it
// from there (a wait, a rollback, a handoff, a person, a clean stop).

// NoAnswer is what the run makes of a reply that answers nothing.
type NoAnswer struct {
	// Told is what the model reads about its reply.
	Told string
	// Event is the failure the loop detector observes: the same
	// signature for every reply of a kind, so repeats make a loop.
	Event LoopEvent
}

// AnswersNothing judges a reply without calls: its content, its refusal
// (OpenAI's message.refusal) and how it finished. ok is false for a
// reply with content, which is an output to check.
func AnswersNothing(content, refusal, finish string) (NoAnswer, bool) {
	switch {
	case refusal != "":
		return NoAnswer{
			Told:  fmt.Sprintf("the reply was a refusal (%q): if the task cannot be done as asked, say why as the result; otherwise call a tool or give the result", quoteBytes(refusal, 200)),
			Event: LoopEvent{Signature: "reply:refused", Key: "reply:refused", Failed: true, Class: string(Refused)},
		}, true
	case strings.TrimSpace(content) == "":
		return NoAnswer{
			Told:  fmt.Sprintf("the reply was empty (finish_reason %q): call a tool or give the result", finish),
			Event: LoopEvent{Signature: "reply:empty", Key: "reply:empty", Failed: true, Class: string(Unclassified)},
		}, true
	}
	return NoAnswer{}, false
}

// At is the event of a graph llm node at `at` whose reply answered
// nothing: the node's own, so the same empty reply at another node is
// another event.
func (na NoAnswer) At(at string) LoopEvent {
	ev := na.Event
	ev.Signature, ev.Key = Signature(at, ev.Signature), Signature(at, ev.Key)
	return ev
}

// quoteBytes is s cut to at most n bytes (CutText), "..." marking a cut.
func quoteBytes(s string, n int) string {
	if cut := CutText(s, n); len(cut) < len(s) {
		return cut + "..."
	}
	return s
}
