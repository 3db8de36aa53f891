package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/signals"
)

// registerMessages installs the messages a run takes from outside. Each is
// an update (validated, answered) and a signal of the same name (fire and
// forget: an invalid one is logged and recorded in the trace, never fails
// the run).
func (r *runner) registerMessages(ctx workflow.Context) error {
	err := workflow.SetUpdateHandlerWithOptions(ctx, signals.Reply,
		func(ctx workflow.Context, req signals.ReplyRequest) (signals.ReplyResult, error) {
			return r.acceptReply(req)
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req signals.ReplyRequest) error {
			if err := req.Validate(); err != nil {
				return err
			}
			return r.replyWanted()
		}})
	if err != nil {
		return err
	}
	err = workflow.SetUpdateHandlerWithOptions(ctx, signals.Approve,
		func(ctx workflow.Context, req signals.ApproveRequest) (signals.ApproveResult, error) {
			return r.acceptApproval(req)
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req signals.ApproveRequest) error {
			if err := req.Validate(); err != nil {
				return err
			}
			return r.approveWanted(req)
		}})
	if err != nil {
		return err
	}
	for _, name := range []string{signals.Edit, signals.Handoff} {
		name := name
		err := workflow.SetUpdateHandlerWithOptions(ctx, name,
			func(ctx workflow.Context, _ map[string]any) (string, error) { return "", notYet(name) },
			workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, _ map[string]any) error { return notYet(name) }})
		if err != nil {
			return err
		}
	}
	workflow.Go(ctx, func(ctx workflow.Context) { r.receiveSignals(ctx) })
	return nil
}

// maxIgnoredSignalNodes bounds the trace nodes of ignored signals.
const maxIgnoredSignalNodes = 100

func notYet(name string) error {
	return fmt.Errorf("%s: not available in this version of unstuck", name)
}

// receiveSignals handles the signal forms of the messages for the life of
// the run, in arrival order.
func (r *runner) receiveSignals(ctx workflow.Context) {
	replies := workflow.GetSignalChannel(ctx, signals.Reply)
	others := map[string]workflow.ReceiveChannel{}
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(replies, func(c workflow.ReceiveChannel, _ bool) {
		// Decoded here, not by the SDK, so a payload that is not a reply
		// is recorded like any other invalid signal instead of dropped.
		var raw json.RawMessage
		c.Receive(ctx, &raw)
		var req signals.ReplyRequest
		err := json.Unmarshal(raw, &req)
		if err != nil {
			err = fmt.Errorf("reply: the payload is not a reply object: %v", err)
		} else {
			err = req.Validate()
		}
		if err == nil {
			_, err = r.acceptReply(req)
		}
		if err != nil {
			r.ignoredSignal(ctx, signals.Reply, req.Audit, err)
		}
	})
	sel.AddReceive(workflow.GetSignalChannel(ctx, signals.Approve), func(c workflow.ReceiveChannel, _ bool) {
		var raw json.RawMessage
		c.Receive(ctx, &raw)
		var req signals.ApproveRequest
		err := json.Unmarshal(raw, &req)
		if err != nil {
			err = fmt.Errorf("approve: the payload is not an approve object: %v", err)
		} else if err = req.Validate(); err == nil {
			_, err = r.acceptApproval(req)
		}
		if err != nil {
			r.ignoredSignal(ctx, signals.Approve, req.Audit, err)
		}
	})
	for _, name := range []string{signals.Edit, signals.Handoff} {
		name := name
		others[name] = workflow.GetSignalChannel(ctx, name)
		sel.AddReceive(others[name], func(c workflow.ReceiveChannel, _ bool) {
			var raw json.RawMessage
			c.Receive(ctx, &raw)
			var payload map[string]any
			_ = json.Unmarshal(raw, &payload)
			by, _ := payload["by"].(string)
			reason, _ := payload["reason"].(string)
			r.ignoredSignal(ctx, name, signals.Audit{By: by, Reason: reason}, notYet(name))
		})
	}
	for {
		sel.Select(ctx)
	}
}

// drainSignals takes the signals still buffered before the run continues
// as new, where they would be lost, and records them: none of them can act
// between generations.
func (r *runner) drainSignals(ctx workflow.Context) {
	for _, name := range []string{signals.Reply, signals.Approve, signals.Edit, signals.Handoff} {
		ch := workflow.GetSignalChannel(ctx, name)
		for {
			var raw json.RawMessage
			if !ch.ReceiveAsync(&raw) {
				break
			}
			r.ignoredSignal(ctx, name, auditOf(raw), fmt.Errorf("%s: arrived while the run was continuing as new", name))
		}
	}
}

func auditOf(raw json.RawMessage) signals.Audit {
	var a signals.Audit
	_ = json.Unmarshal(raw, &a)
	return a
}

// ignoredSignal records a signal the run could not act on, so the audit
// trail shows it and why.
func (r *runner) ignoredSignal(ctx workflow.Context, name string, audit signals.Audit, why error) {
	workflow.GetLogger(ctx).Warn("ignored signal", "signal", name, "error", why.Error())
	// A flood of bad signals must not grow the run without bound: past a
	// hundred, they are counted, not recorded one by one.
	r.run.IgnoredSignals++
	if r.run.IgnoredSignals > maxIgnoredSignalNodes {
		return
	}
	r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindHuman, Status: signals.StatusSkipped, Parents: []string{},
		Args:  mustJSON(map[string]any{"signal": name, "by": audit.By, "reason": audit.Reason}),
		Error: "ignored " + name + " signal: " + why.Error(),
	}, Step: r.run.Step})
}
