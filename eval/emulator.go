package eval

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/policies"
)

// What an eval does with a call the recording does not have.
const (
	// UnrecordedError answers it with a persistent error and marks the
	// run diverged.
	UnrecordedError = "error"
	// UnrecordedLive makes the real call, for a read tool only.
	UnrecordedLive = "live"
)

// Emulator answers the tool calls of an eval's runs from their cases'
// recordings (activities.WithToolEmulator), one Replay per run, and
// counts the calls each run made that the recording does not have.
type Emulator struct {
	unrecorded string
	// defaulted are the tools whose effect the config does not declare:
	// never called live, as they may write.
	defaulted map[string]bool
	mu        sync.Mutex
	runs      map[string]*emulatedRun
}

// emulatedRun is one run's replay and its calls off the recording.
type emulatedRun struct {
	replay *Replay
	// diverged are the unrecorded calls answered with an error, live
	// those made for real.
	diverged, live []string
}

// NewEmulator is an emulator doing unrecorded (UnrecordedError or
// UnrecordedLive) with calls off the recording; defaulted are the tools
// whose effect the config leaves to its default (config.Tool's
// EffectDefaulted), which it never calls live.
func NewEmulator(unrecorded string, defaulted ...string) *Emulator {
	e := &Emulator{unrecorded: unrecorded, defaulted: map[string]bool{}, runs: map[string]*emulatedRun{}}
	for _, t := range defaulted {
		e.defaulted[t] = true
	}
	return e
}

// DefaultedEffects are the tools of cfg whose effect the file does not
// declare, for NewEmulator.
func DefaultedEffects(cfg *config.File) []string {
	var out []string
	for _, t := range cfg.Tools {
		if t.EffectDefaulted {
			out = append(out, t.Name)
		}
	}
	return out
}

// Add makes workflowID's calls be answered from c's recording.
func (e *Emulator) Add(workflowID string, c *Case) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.runs[workflowID] = &emulatedRun{replay: NewReplay(c)}
}

// Done ends workflowID's run once it is judged: it returns the run's calls
// the recording did not have (those answered with an error, diverged, and
// those made live) and forgets the run, so an eval of many repeats does
// not keep every run's replay. A call of the run after Done is off the
// record.
func (e *Emulator) Done(workflowID string) (diverged, live []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.runs[workflowID]
	delete(e.runs, workflowID)
	if r == nil {
		return nil, nil
	}
	return r.diverged, r.live
}

// Answer is the emulator's answer to a call (an activities.ToolEmulator).
// A run the emulator was not given (a child workflow, or a run already
// Done) has no recording: every call of it is off the record, so none
// reaches a tool that writes, and it is not kept, as no one asks for it.
func (e *Emulator) Answer(call activities.EmulatedCall) activities.Emulation {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.runs[call.WorkflowID]
	if r == nil {
		r = &emulatedRun{replay: NewReplay(&Case{})}
	}
	if t, ok := r.replay.Answer(call.Tool, call.Args); ok {
		return recorded(t)
	}
	what := fmt.Sprintf("%s %s", call.Tool, call.Args)
	declared := !e.defaulted[call.Tool]
	if e.unrecorded == UnrecordedLive && call.Effect == config.EffectRead && declared {
		r.live = append(r.live, what)
		return activities.Emulation{Live: true}
	}
	r.diverged = append(r.diverged, what)
	why := "the eval case's recording has no such call"
	switch {
	case e.unrecorded != UnrecordedLive:
	case !declared:
		why += fmt.Sprintf(", and tool %s's effect is not declared in the config (effect: read), so it is not called live", call.Tool)
	default:
		why += fmt.Sprintf(", and tool %s's effect is %s, not read, so it is not called live", call.Tool, call.Effect)
	}
	return activities.Emulation{
		ErrorClass:   policies.Persistent,
		ErrorMessage: fmt.Sprintf("tool %s: the call %s was not recorded (%s)", call.Tool, what, why),
	}
}

// recorded is a recorded call's answer given again: its result, or its
// failure with its class (persistent when the case names none).
func recorded(t ToolResult) activities.Emulation {
	if t.Error != nil {
		class := policies.Class(t.Error.Class)
		if class == "" {
			class = policies.Persistent
		}
		return activities.Emulation{ErrorClass: class, ErrorMessage: t.Error.Message}
	}
	b, err := json.Marshal(jsonable(t.Result))
	if err != nil {
		return activities.Emulation{ErrorClass: policies.Persistent, ErrorMessage: fmt.Sprintf("tool %s: the recorded result is not JSON: %v", t.Tool, err)}
	}
	return activities.Emulation{Result: b}
}
