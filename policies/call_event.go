package policies

import (
	"encoding/json"
	"slices"
)

// CallEvent is one settled call as the loop detector and the blocklist see
// it. Its strings are the ones recorded histories already hold, so the
// workflow builds them here, in one place.
type CallEvent struct {
	Where   string          // graph node the call ran at, "" for a free-form (model) call
	Tool    string          // the tool the call was for (not a fallback serving it)
	Args    json.RawMessage // the resolved arguments the call ran with
	Outcome string          // "ok", or the failure class
	// Volatile are the tool's own volatile fields (config.Tool.Volatile),
	// left out of the key besides DefaultVolatile.
	Volatile []string
}

// Failed reports whether the call failed: any outcome but "ok".
func (e CallEvent) Failed() bool { return e.Outcome != "ok" }

// Key is the call's identity without its outcome (where, tool, canonical
// arguments without the volatile fields): no-progress loops and the
// blocklist go by it, so a repeated call is the same call however its
// clocks and request ids differ.
func (e CallEvent) Key() string {
	return CanonicalSignature(e.Where, e.Tool, e.Args, "", volatileOf(e.Volatile))
}

// volatileOf is what a signature leaves out of a tool's arguments: the
// default volatile names and the tool's own.
func volatileOf(tool []string) []string {
	if len(tool) == 0 {
		return DefaultVolatile
	}
	return slices.Concat(DefaultVolatile, tool)
}

// Signature is the call's identity with its outcome, Key + ":" + Outcome:
// cycles are repetitions of these.
func (e CallEvent) Signature() string { return e.Key() + ":" + e.Outcome }

// LoopEvent is what the detector observes of the call; Class is the
// outcome of a failed call and empty for a successful one.
func (e CallEvent) LoopEvent() LoopEvent {
	ev := LoopEvent{Signature: e.Signature(), Key: e.Key(), Failed: e.Failed()}
	if ev.Failed {
		ev.Class = e.Outcome
	}
	return ev
}

// BlockKey is the blocklist's identity of a call: its Key with no graph
// node, so an exact call the explore rung blocked stays blocked wherever
// the model makes it again. volatile is the tool's own (Key).
func BlockKey(tool string, args []byte, volatile []string) string {
	return CallEvent{Tool: tool, Args: args, Volatile: volatile}.Key()
}

// HumanNodeEvent is the event of a graph human node at `at`: key
// "human:"+at, signature key+":ok" when a person replied and
// key+":timeout" when none did (a failure, without a class). A human node
// has no arguments: what it asked is the node itself.
func HumanNodeEvent(at string, replied bool) LoopEvent {
	key := "human:" + at
	if replied {
		return LoopEvent{Signature: key + ":ok", Key: key}
	}
	return LoopEvent{Signature: key + ":timeout", Key: key, Failed: true}
}

// LLMNodeEvent is the event of a graph llm node at `at`. Its key is what
// the model asked for (its calls as JSON and its content), so an llm node
// visited again with new calls is progress, not a cycle. outcome is
// "content" (a reply without calls), "ok" (its calls succeeded),
// "failed" (one of them failed), or "no_op" (its calls were writes that
// changed nothing, NoOp). "failed" is a failure without a class (the
// calls' classes are their own events); "no_op" is one of class no_op,
// so an llm node repeating writes that do nothing is no progress, as the
// same calls in a free-form run are.
func LLMNodeEvent(at, callsJSON, content, outcome string) LoopEvent {
	return llmNodeEvent(Signature(at, "llm", callsJSON, content), outcome)
}

func llmNodeEvent(key, outcome string) LoopEvent {
	ev := LoopEvent{Signature: key + ":" + outcome, Key: key, Failed: outcome == "failed"}
	if outcome == string(NoOp) {
		ev.Failed, ev.Class = true, outcome
	}
	return ev
}

// LLMCall is one call of an llm node's reply as its event sees it: the
// tool and its arguments, never the call id the provider gave it (new at
// every reply, so a node asking for the same calls again would look new).
type LLMCall struct {
	Tool     string
	Args     []byte
	Volatile []string // the tool's own volatile fields
}

// StableLLMNodeEvent is the event of a graph llm node at `at` (version
// stable-signatures; LLMNodeEvent before): its key is what the model
// asked for, the calls' tools and canonical arguments without volatile
// fields, in any order, and its content; outcome as LLMNodeEvent's. An
// llm node that asks for the same calls visit after visit then repeats
// one signature, and is a loop like any other node.
func StableLLMNodeEvent(at string, calls []LLMCall, content, outcome string) LoopEvent {
	signed := make([]string, len(calls))
	for i, c := range calls {
		signed[i] = Signature(c.Tool, canonicalArgs(c.Args, volatileOf(c.Volatile)))
	}
	slices.Sort(signed)
	return llmNodeEvent(Signature(append([]string{at, "llm-calls", content}, signed...)...), outcome)
}

// UnknownToolEvent is the event of a graph tool node whose tool the run
// does not have: it fails the same way at every visit, so its key is the
// node and its signature at+":unknown".
func UnknownToolEvent(at string) LoopEvent {
	return LoopEvent{Signature: at + ":unknown", Key: at, Failed: true}
}

// Resets reports whether an event the detector did not report as a loop
// is progress off the last loop: it did not fail and its signature is not
// one of lastCycle (the cycle of the last loop reported). Then the
// ladder starts again from its bottom rung (Ladder.Reset), so the next
// loop is answered cheaply first. The workflow asks only for events that
// completed no loop.
func Resets(ev LoopEvent, lastCycle []string) bool {
	return !ev.Failed && !slices.Contains(lastCycle, ev.Signature)
}

// ResetsInGraph is Resets for an event of a graph walk at node `where`:
// progress off the last loop is a success at a node outside the loop's
// cycle (cycleNodes, the graph nodes of its last repetition). A success
// inside the cycle is the loop going round: in the seed graph
// A -> B -> C -> A, B succeeding while C still leads back to A is a
// signature the cycle did not hold, and counting it as progress sent the
// ladder back to retry after every such success, so explore was never
// reached before max_steps.
func ResetsInGraph(ev LoopEvent, where string, cycleNodes []string) bool {
	return !ev.Failed && !slices.Contains(cycleNodes, where)
}
