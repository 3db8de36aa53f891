package activities

import (
	"encoding/json"

	"github.com/unstuck-dev/unstuck/policies"
)

// EmulatedCall is a tool call handed to a ToolEmulator: whose it is, the
// tool as the worker's config has it, and the arguments.
type EmulatedCall struct {
	WorkflowID string
	Tool       string
	// Effect is the tool's effect in the worker's config (read,
	// idempotent, write): an emulator letting a call through checks it.
	Effect string
	Args   json.RawMessage
}

// Emulation is a ToolEmulator's answer to a call: its result, or its
// failure (ErrorClass set), or Live, to make the real call.
type Emulation struct {
	Result       json.RawMessage
	ErrorClass   policies.Class
	ErrorMessage string
	Live         bool
}

// ToolEmulator answers tool calls in place of the tools, so a run can be
// done again against a recording (unstuck eval run). It is consulted
// after the call is checked against the worker's config, so a call the
// real worker refuses is refused the same way.
type ToolEmulator func(EmulatedCall) Emulation

// Option configures the activity set built by New.
type Option func(*Activities)

// WithToolEmulator makes e answer every tool call before the real tool
// is reached; without it the tools are always called.
func WithToolEmulator(e ToolEmulator) Option {
	return func(a *Activities) { a.emulator = e }
}

// emulate is the emulator's answer to a call as RunTool answers: a
// failure is the classed application error a real tool's failure of that
// class is. done is false when the real tool is to be called.
func (a *Activities) emulate(wfID string, req toolCall) (result json.RawMessage, done bool, err error) {
	if a.emulator == nil {
		return nil, false, nil
	}
	e := a.emulator(EmulatedCall{WorkflowID: wfID, Tool: req.Tool.Name, Effect: req.Tool.Effect, Args: req.Args})
	switch {
	case e.Live:
		return nil, false, nil
	case e.ErrorClass != "":
		return nil, true, classed(e.ErrorClass, e.ErrorMessage, 0)
	}
	return e.Result, true, nil
}
