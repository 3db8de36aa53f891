package workflows

import (
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
			if r.waitingHuman == "" {
				return fmt.Errorf("reply: nothing waits for a reply (the run is %s)", r.run.Phase)
			}
			return nil
		}})
	if err != nil {
		return err
	}
	for _, name := range []string{signals.Approve, signals.Edit, signals.Handoff} {
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
		var req signals.ReplyRequest
		c.Receive(ctx, &req)
		err := req.Validate()
		if err == nil {
			_, err = r.acceptReply(req)
		}
		if err != nil {
			r.ignoredSignal(ctx, signals.Reply, req.Audit, err)
		}
	})
	for _, name := range []string{signals.Approve, signals.Edit, signals.Handoff} {
		name := name
		others[name] = workflow.GetSignalChannel(ctx, name)
		sel.AddReceive(others[name], func(c workflow.ReceiveChannel, _ bool) {
			var payload map[string]any
			c.Receive(ctx, &payload)
			by, _ := payload["by"].(string)
			reason, _ := payload["reason"].(string)
			r.ignoredSignal(ctx, name, signals.Audit{By: by, Reason: reason}, notYet(name))
		})
	}
	for {
		sel.Select(ctx)
	}
}

// ignoredSignal records a signal the run could not act on, so the audit
// trail shows it and why.
func (r *runner) ignoredSignal(ctx workflow.Context, name string, audit signals.Audit, why error) {
	workflow.GetLogger(ctx).Warn("ignored signal", "signal", name, "error", why.Error())
	r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindHuman, Status: signals.StatusSkipped, Parents: []string{},
		Args:  mustJSON(map[string]any{"signal": name, "by": audit.By, "reason": audit.Reason}),
		Error: "ignored " + name + " signal: " + why.Error(),
	}, Step: r.run.Step})
}
