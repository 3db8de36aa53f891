package workflows

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/workflows/edit"
)

// editResume is where the first step of a run an edit continued picks up:
// the calls of Request run again (those the edit did not keep), or, with
// no Request, the next model request follows from the frontier.
type editResume struct {
	Request string `json:"request,omitempty"`
	// Args are the arguments a person gave a call (by the model's call
	// id): the call runs again with them.
	Args map[string]edit.Args `json:"args,omitempty"`
	// Waiting: the run continued as new while waiting for people, and
	// waits for the same things (waiting.go).
	Waiting *waitingResume `json:"waiting,omitempty"`
}

// resume is the first step of a free-form run an edit continued as new:
// the calls of the edited request (or of the edited call's request) that
// the edit did not keep run again, and the step ends as any step does;
// with no request to resume, the next model request follows from the
// edited node.
func (f freeForm) resume(ctx workflow.Context) (bool, *AgentResult, error) {
	r := f.r
	res := r.run.Resume
	r.run.Resume = nil
	if res.Waiting != nil && res.Waiting.Rung != nil {
		_, done, err := r.engine().settleLoop(ctx, stepEnd{rung: heldRung(r, res.Waiting).wait(ctx, "")})
		return done, nil, err
	}
	req := r.run.node(res.Request)
	if res.Request == "" || req == nil {
		return false, nil, nil
	}
	var rec replyRecord
	if err := r.stopUndecodable(ctx, decodeRecorded(req, "the edited model reply", req.Output, &rec)); err != nil {
		return false, nil, err
	}
	if len(rec.ToolCalls) == 0 {
		return r.outputs().contentOutput(ctx, req.ID, rec.Content, rec.FinishReason)
	}
	final, calls, err := replyPipeline(ctx, r, req.ID).runCalls(ctx, req.ID, rec.ToolCalls, res)
	return freeForm{r: r}.afterCalls(ctx, req.ID, final, calls, err)
}

// keptCall is a call of a resumed reply that the edit kept (edit.Kept):
// settled, it is not run again.
func (res *editResume) keptCall(run *Run, reqID string, tc activities.ToolCall) *stepCall {
	if res == nil {
		return nil
	}
	n := edit.Kept(&run.Trace, reqID, tc)
	if n == nil {
		return nil
	}
	return &stepCall{nodeID: n.ID, name: tc.Name, started: true, done: true, errText: n.Error, class: n.Class}
}

// editedCall gives a call the arguments a person set by an edit (keeping
// the State path it writes), and what the model is told of the change.
func (res *editResume) editedCall(tc activities.ToolCall) (activities.ToolCall, json.RawMessage) {
	if res == nil {
		return tc, nil
	}
	e, ok := res.Args[tc.ID]
	if !ok {
		return tc, nil
	}
	tc.Args = argsKeepingOutputPath(e.Args, tc.Args)
	return tc, mustJSON(map[string]any{"decision": "edit", "by": e.By, "reason": e.Reason, "tool": tc.Name, "args": e.Args})
}

// argsKeepingOutputPath is args (a person's, or those a call waited with)
// with the State path the model's original arguments wrote (_outputPath).
func argsKeepingOutputPath(args json.RawMessage, original string) string {
	out := map[string]any{}
	if doc, err := decodeJSON(args); err == nil {
		if obj, ok := doc.(map[string]any); ok {
			out = obj
		}
	}
	if orig, problem := parseArgs(original); problem == "" {
		var o map[string]any
		if json.Unmarshal(orig, &o) == nil {
			if p, ok := o[OutputPathArg]; ok {
				out[OutputPathArg] = p
			}
		}
	}
	return string(mustJSON(out))
}
