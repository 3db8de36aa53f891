package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
)

// maxFormBytes bounds an action's form: args and outputs are JSON a
// person typed, far below this.
const maxFormBytes = 1 << 20

// answer is what an action says: the update's answer (OK) or why it was
// refused, by the form check or by the run. It is always sent with 200 so
// htmx swaps it into #answer; the class tells them apart.
type answer struct {
	OK   bool
	Text string
}

// refusedf is a refusal of the console's own, before anything was sent.
func refusedf(format string, args ...any) answer {
	return answer{Text: fmt.Sprintf(format, args...)}
}

func (c *Console) sendAnswer(w http.ResponseWriter, a answer) {
	c.render(w, http.StatusOK, "answer", a)
}

// form reads an action's form, bounded.
func form(w http.ResponseWriter, r *http.Request) (func(string) string, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, fmt.Errorf("the form is over %d KiB", maxFormBytes>>10)
		}
		return nil, fmt.Errorf("the form could not be read: %v", err)
	}
	return func(k string) string { return r.PostForm.Get(k) }, nil
}

// act is the shape of every action: read the form into a request the
// signals package validates, send it as the update name, and word the
// answer. Nothing is sent when the form is wrong, and the run's refusal
// is shown verbatim.
func act[Req interface{ Validate() error }, Res any](c *Console, w http.ResponseWriter, r *http.Request, name string,
	build func(get func(string) string) (Req, error), say func(Req, Res) string) {
	get, err := form(w, r)
	if err == nil {
		get, err = asWho(r, get)
	}
	if err != nil {
		c.sendAnswer(w, refusedf("not sent: %s: %v", name, err))
		return
	}
	req, err := build(get)
	if err == nil {
		err = req.Validate()
	}
	if err != nil {
		c.sendAnswer(w, refusedf("not sent: %v", err))
		return
	}
	var res Res
	if err := runmsg.Update(r.Context(), c.tc, r.PathValue("id"), "", name, req, &res); err != nil {
		c.sendAnswer(w, answer{Text: err.Error()})
		return
	}
	c.sendAnswer(w, answer{OK: true, Text: say(req, res)})
}

// audit reads the form's by and reason.
func audit(get func(string) string) signals.Audit {
	return signals.Audit{By: strings.TrimSpace(get("by")), Reason: strings.TrimSpace(get("reason"))}
}

// approve is POST /runs/{id}/approve: the decision is the button pressed;
// the args field counts only for modify.
func (c *Console) approve(w http.ResponseWriter, r *http.Request) {
	act(c, w, r, signals.Approve, func(get func(string) string) (signals.ApproveRequest, error) {
		req := signals.ApproveRequest{Audit: audit(get), CallID: strings.TrimSpace(get("call_id")), Decision: get("decision")}
		if req.Decision == signals.DecisionModify {
			args, err := jsonObject("args", get("args"))
			if err != nil {
				return req, err
			}
			req.Args = args
		}
		if req.Validate() != nil {
			return req, nil // act says what is wrong with it
		}
		return req, c.signApproval(r.Context(), r.PathValue("id"), runmsg.Known{}, &req)
	}, func(_ signals.ApproveRequest, res signals.ApproveResult) string {
		return fmt.Sprintf("call %s settled (%s)", res.CallID, res.Decision)
	})
}

// edit is POST /runs/{id}/edit: output (JSON, or else text sent as a JSON
// string) or args (a JSON object), as `unstuck edit` takes them.
func (c *Console) edit(w http.ResponseWriter, r *http.Request) {
	act(c, w, r, signals.Edit, func(get func(string) string) (signals.EditRequest, error) {
		req := signals.EditRequest{Audit: audit(get), NodeID: strings.TrimSpace(get("node_id"))}
		output, args := get("output"), get("args")
		if strings.TrimSpace(output) != "" && strings.TrimSpace(args) != "" {
			return req, fmt.Errorf(`give "output" (the node's new output) or "args" (a call's new arguments), not both`)
		}
		if strings.TrimSpace(output) != "" {
			req.Output = outputValue(output)
		}
		if strings.TrimSpace(args) != "" {
			raw, err := jsonObject("args", args)
			if err != nil {
				return req, err
			}
			req.Args = raw
		}
		return req, nil
	}, func(req signals.EditRequest, res signals.EditResult) string {
		edited := res.Edited
		if edited == "" {
			edited = req.NodeID
		}
		invalidated := "nothing"
		if len(res.Invalidated) > 0 {
			invalidated = strings.Join(res.Invalidated, ", ")
		}
		if res.WorkflowID != "" {
			return fmt.Sprintf("edited %s in a fork: workflow %s; invalidated %s", edited, res.WorkflowID, invalidated)
		}
		return fmt.Sprintf("edited %s; invalidated %s; generation %d", edited, invalidated, res.Generation)
	})
}

// handoff is POST /runs/{id}/handoff; an empty "to" lets the run choose.
func (c *Console) handoff(w http.ResponseWriter, r *http.Request) {
	act(c, w, r, signals.Handoff, func(get func(string) string) (signals.HandoffRequest, error) {
		return signals.HandoffRequest{Audit: audit(get), To: strings.TrimSpace(get("to")), Note: strings.TrimSpace(get("note"))}, nil
	}, func(_ signals.HandoffRequest, res signals.HandoffResult) string {
		var b strings.Builder
		if res.To != "" {
			fmt.Fprintf(&b, "handed off to %s (handoff node %s)", res.To, res.NodeID)
		} else {
			fmt.Fprintf(&b, "no agent could take the run, so it stopped (handoff node %s)", res.NodeID)
		}
		for _, ref := range res.Refused {
			fmt.Fprintf(&b, "; refused %s: %s", ref.Agent, ref.Why)
		}
		if len(res.HandoffPath) > 0 {
			fmt.Fprintf(&b, "; path %s", strings.Join(res.HandoffPath, " → "))
		}
		return b.String()
	})
}

// reply is POST /runs/{id}/reply: a person's answer to a run waiting for
// one.
func (c *Console) reply(w http.ResponseWriter, r *http.Request) {
	act(c, w, r, signals.Reply, func(get func(string) string) (signals.ReplyRequest, error) {
		req := signals.ReplyRequest{Audit: audit(get), Text: get("text")}
		if out := strings.TrimSpace(get("output")); out != "" {
			if !json.Valid([]byte(out)) {
				return req, fmt.Errorf(`reply: "output" is not valid JSON`)
			}
			req.Output = json.RawMessage(out)
		}
		if req.Validate() != nil {
			return req, nil // act says what is wrong with it
		}
		return req, c.signReply(r.Context(), r.PathValue("id"), &req)
	}, func(_ signals.ReplyRequest, res signals.ReplyResult) string {
		return fmt.Sprintf("reply accepted: it settles node %s", res.NodeID)
	})
}

// message is POST /runs/{id}/message: a conversation's next message, as
// `unstuck say` sends it.
func (c *Console) message(w http.ResponseWriter, r *http.Request) {
	act(c, w, r, signals.Message, func(get func(string) string) (signals.MessageRequest, error) {
		return signals.MessageRequest{Audit: signals.Audit{By: strings.TrimSpace(get("by"))}, Text: get("text")}, nil
	}, func(_ signals.MessageRequest, res signals.MessageResult) string {
		return fmt.Sprintf("message taken: %d waiting to be answered", res.Queued)
	})
}

// budget is POST /runs/{id}/budget: a person's decision for a run
// waiting at its budget rung: the button pressed (raise or stop) and the
// amounts to raise the limits by.
func (c *Console) budget(w http.ResponseWriter, r *http.Request) {
	act(c, w, r, signals.Budget, func(get func(string) string) (signals.BudgetRequest, error) {
		req := signals.BudgetRequest{Audit: audit(get)}
		if get("decision") == "stop" {
			req.Stop = true
			return req, nil
		}
		var raise signals.BudgetRaise
		counts := []struct {
			field string
			to    *int64
		}{{"model_requests", &raise.ModelRequests}, {"tool_calls", &raise.ToolCalls}, {"input_tokens", &raise.InputTokens}, {"output_tokens", &raise.OutputTokens}}
		for _, n := range counts {
			if text := strings.TrimSpace(get(n.field)); text != "" {
				v, err := strconv.ParseInt(text, 10, 64)
				if err != nil {
					return req, fmt.Errorf("budget: %q is %q, not a whole number", n.field, text)
				}
				*n.to = v
			}
		}
		if text := strings.TrimSpace(get("cost")); text != "" {
			v, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return req, fmt.Errorf("budget: \"cost\" is %q, not an amount", text)
			}
			raise.Cost = v
		}
		raise.WallTime = strings.TrimSpace(get("wall_time"))
		perTool, err := signals.ParseToolCounts(get("tool_calls_per_tool"))
		if err != nil {
			return req, err
		}
		raise.ToolCallsPerTool = perTool
		if !raise.Empty() {
			req.Raise = &raise
		}
		return req, nil
	}, func(req signals.BudgetRequest, res signals.BudgetResult) string {
		if req.Stop {
			return fmt.Sprintf("budget: the run stops (node %s)", res.NodeID)
		}
		return fmt.Sprintf("budget raised: it settles node %s", res.NodeID)
	})
}

// jsonObject reads a form field that must be a JSON object.
func jsonObject(field, text string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &m); err != nil || m == nil {
		return nil, fmt.Errorf(`%q must be a JSON object, like {"key": "value"}`, field)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil {
		return nil, fmt.Errorf("%q: %v", field, err)
	}
	return buf.Bytes(), nil
}

// outputValue is an edit's output: the text as typed when it is JSON,
// else the text as a JSON string (as --output-text sends it).
func outputValue(text string) json.RawMessage {
	var buf bytes.Buffer
	if json.Valid([]byte(text)) && json.Compact(&buf, []byte(text)) == nil {
		return buf.Bytes()
	}
	raw, _ := json.Marshal(text)
	return raw
}
