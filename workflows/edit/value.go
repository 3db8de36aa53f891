package edit

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
	"github.com/unstuck-dev/unstuck/workflows/trace"
)

// editedValue is what an edit makes of a task, request or human node, in
// the form the node keeps it.
func (e *Edits) editedValue(n *trace.Node, req signals.EditRequest) (json.RawMessage, error) {
	switch n.Kind {
	case signals.KindTask:
		return e.editedTask(req.Output)
	case signals.KindRequest:
		rec, err := e.host.Reply(n, "the recorded model reply")
		if err != nil {
			return nil, fmt.Errorf("edit: %v", err)
		}
		return e.editedReply(n.ID, rec, req.Output)
	case signals.KindHuman:
		return e.editedHumanReply(req.Output)
	}
	return req.Output, nil
}

// editedTask reads a task edit: a string (the new task) or {"task"?,
// "input"?}; what it leaves out stays.
func (e *Edits) editedTask(out json.RawMessage) (json.RawMessage, error) {
	task, input := *e.task, *e.input
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	var text string
	if json.Unmarshal(out, &text) == nil {
		task = text
	} else {
		var obj struct {
			Task  *string         `json:"task"`
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(out, &obj); err != nil {
			return nil, fmt.Errorf(`edit: a task's "output" is the new task (a string) or {"task", "input"}: %v`, err)
		}
		if obj.Task != nil {
			task = *obj.Task
		}
		if len(obj.Input) > 0 {
			if !e.host.IsObject(obj.Input) {
				return nil, fmt.Errorf(`edit: the task's "input" must be a JSON object`)
			}
			input = obj.Input
		}
	}
	if strings.TrimSpace(task) == "" {
		return nil, fmt.Errorf("edit: the task would be empty")
	}
	return e.host.JSON(map[string]any{"task": task, "input": input}), nil
}

// editedCall is a call as an edit of a request gives it; args may be a
// JSON object or the text of one (as the model writes it).
type editedCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// editedReply reads a request edit: a string (the new thought, the calls
// stay) or {"content"?, "tool_calls"?}; tool_calls, when given, replace
// the calls.
func (e *Edits) editedReply(nodeID string, rec model.Record, out json.RawMessage) (json.RawMessage, error) {
	var text string
	if json.Unmarshal(out, &text) == nil {
		rec.Content = text
		return e.host.JSON(rec), nil
	}
	var obj struct {
		Content   *string       `json:"content"`
		ToolCalls *[]editedCall `json:"tool_calls"`
	}
	if err := json.Unmarshal(out, &obj); err != nil {
		return nil, fmt.Errorf(`edit: a request's "output" is its new thought (a string) or {"content", "tool_calls": [{"name", "args"}]}: %v`, err)
	}
	if obj.Content != nil {
		rec.Content = *obj.Content
	}
	if obj.ToolCalls != nil {
		calls, err := e.editedCalls(nodeID, *obj.ToolCalls)
		if err != nil {
			return nil, err
		}
		rec.ToolCalls = calls
	}
	if strings.TrimSpace(rec.Content) == "" && len(rec.ToolCalls) == 0 {
		return nil, fmt.Errorf("edit: the request would have neither a thought nor calls")
	}
	return e.host.JSON(rec), nil
}

func (e *Edits) editedCalls(nodeID string, in []editedCall) ([]activities.ToolCall, error) {
	out := make([]activities.ToolCall, len(in))
	seen := map[string]bool{}
	for i, c := range in {
		if c.Name != signals.FinalOutputTool {
			if _, ok := e.host.Spec().AgentTool(c.Name); !ok {
				return nil, fmt.Errorf("edit: tool_calls[%d] names %s", i, e.host.UnknownTool(c.Name))
			}
		}
		args := string(c.Args)
		var s string
		if json.Unmarshal(c.Args, &s) == nil {
			args = s
		}
		if len(c.Args) == 0 {
			args = "{}"
		}
		if _, problem := e.host.ParseArgs(args); problem != "" {
			return nil, fmt.Errorf("edit: tool_calls[%d].args: %s", i, problem)
		}
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("edit_%s_%d", nodeID, i)
		}
		if seen[id] {
			return nil, fmt.Errorf("edit: tool_calls[%d].id %q is used twice", i, id)
		}
		seen[id] = true
		out[i] = activities.ToolCall{ID: id, Name: c.Name, Args: args}
	}
	return out, nil
}

// editedHumanReply reads a reply edit: a string (the text) or a reply.
func (e *Edits) editedHumanReply(out json.RawMessage) (json.RawMessage, error) {
	var reply signals.ReplyRequest
	var text string
	if json.Unmarshal(out, &text) == nil {
		reply.Text = text
	} else if err := json.Unmarshal(out, &reply); err != nil {
		return nil, fmt.Errorf(`edit: a reply's "output" is its text (a string) or {"text", "output"}: %v`, err)
	}
	if err := reply.Validate(); err != nil {
		return nil, fmt.Errorf("edit: %v", err)
	}
	return e.host.JSON(reply), nil
}
