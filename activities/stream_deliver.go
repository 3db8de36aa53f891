package activities

import (
	"bytes"
	"context"
	"encoding/json"

	"go.temporal.io/sdk/activity"

	"github.com/unstuck-dev/unstuck/signals"
)

// callSender sends the run a call the model finished while its reply
// still streams (signals.StreamedCall), keyed by the request node and the
// call's index. Without a node to send to (a run of an earlier version, a
// graph's model request) or a client that can signal, calls are not sent
// and start when the reply ends. The run takes calls only in order and
// within the agent's calls_per_reply, so none is sent after a call that
// could not be (it is only logged: the reply, this activity's result,
// still carries it) or past that limit: each would be an event in the
// run's history for nothing.
func (a *Activities) callSender(ctx context.Context, agent, requestNode string) func(int, ToolCall) {
	if requestNode == "" || a.signaler == nil {
		return nil
	}
	info := activity.GetInfo(ctx)
	wf := info.WorkflowExecution
	limit := a.config.CallsPerReply(agent)
	stopped := false
	return func(index int, call ToolCall) {
		if stopped || index >= limit {
			return
		}
		sc := StreamedCall{Request: requestNode, Index: index, Attempt: info.Attempt, Call: call}
		if err := a.signaler.SignalWorkflow(ctx, wf.ID, wf.RunID, signals.StreamedCall, sc); err != nil {
			stopped = true
			activity.GetLogger(ctx).Warn("could not send a streamed call to its run; it and the calls after it start when the reply ends",
				"request", requestNode, "index", index, "tool", call.Name, "error", err.Error())
		}
	}
}

// sendFinished sends, in order, the calls whose arguments are complete: a
// call is finished when its arguments are a whole JSON object (text
// appended to one could only make it invalid) or a later call has begun.
// The first call that ends without valid arguments, an id or a name stops
// the sending for the rest of the reply, which then starts those calls when
// it ends, through the checks the run makes of every call. So does
// final_output or handoff: the run settles them only once the step's other
// calls are done, so sending one (usually the reply's last call) would only
// add an event to the run's history.
func (s *streamAssembly) sendFinished(send func(int, ToolCall)) {
	for send != nil && !s.sendingStopped {
		c := s.calls[s.sent]
		if c == nil {
			return
		}
		if c.Name == signals.FinalOutputTool || c.Name == signals.HandoffTool {
			s.sendingStopped = true
			return
		}
		complete := c.ID != "" && c.Name != "" && isJSONObjectText(c.Args)
		if !complete {
			if _, later := s.calls[s.sent+1]; later {
				s.sendingStopped = true
			}
			return
		}
		send(s.sent, *c)
		s.sent++
	}
}

// isJSONObjectText: the text is one JSON object (checked only when it
// ends in a brace, so a call arriving in pieces is not parsed each time).
func isJSONObjectText(text string) bool {
	t := bytes.TrimSpace([]byte(text))
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return false
	}
	return json.Valid(t)
}
