package workflows

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/config"
	"github.com/unstuck-dev/unstuck/signals"
)

// registerMessages installs the messages a run takes from outside. Each is
// an update (validated, answered) and a signal of the same name (fire and
// forget: an invalid one is logged and recorded in the trace, never fails
// the run). An update whose payload cannot be decoded is rejected by the
// SDK; one too large is rejected by its validator.
func (r *runner) registerUpdates(ctx workflow.Context) error {
	h := handlers{r}
	inRun := sameRelease(ctx)
	err := errors.Join(
		setRunUpdate(ctx, h, runUpdate[signals.ReplyRequest, signals.ReplyResult]{
			name: signals.Reply, validate: signals.ReplyRequest.Validate,
			wanted: func(ctx workflow.Context, req signals.ReplyRequest) error { return r.person().ReplyWanted(ctx, req) },
			accept: func(ctx workflow.Context, req signals.ReplyRequest) (signals.ReplyResult, error) {
				return r.person().AcceptReply(ctx, req)
			},
		}),
		setRunUpdate(ctx, h, runUpdate[signals.MessageRequest, signals.MessageResult]{
			name: signals.Message, validate: signals.MessageRequest.Validate,
			wanted: func(workflow.Context, signals.MessageRequest) error {
				if r.carried && r.run.Spec.Agent.Conversation != nil {
					// The inbox went with the state carried into the next
					// generation; that generation takes the message.
					return fmt.Errorf("message: the run is closing (it continues as new into generation %d): %s", r.run.Generation+1, signals.RunClosing)
				}
				return r.chat().Wanted()
			},
			accept: func(ctx workflow.Context, req signals.MessageRequest) (signals.MessageResult, error) {
				res, err := r.chat().Accept(req)
				h.answerApart(ctx)
				return res, err
			},
		}),
		setRunUpdate(ctx, h, runUpdate[signals.ApproveRequest, signals.ApproveResult]{
			name: signals.Approve, validate: signals.ApproveRequest.Validate,
			wanted: func(ctx workflow.Context, req signals.ApproveRequest) error {
				return r.person().ApproveWanted(ctx, req)
			},
			accept: func(ctx workflow.Context, req signals.ApproveRequest) (signals.ApproveResult, error) {
				return r.person().AcceptApproval(ctx, req)
			},
		}),
		setRunUpdate(ctx, h, runUpdate[signals.EditRequest, signals.EditResult]{
			name: signals.Edit, validate: signals.EditRequest.Validate,
			wanted: func(_ workflow.Context, req signals.EditRequest) error { return h.editWanted(req) },
			accept: func(ctx workflow.Context, req signals.EditRequest) (signals.EditResult, error) {
				res, err := r.edit().Accept(inRun(ctx), req, true)
				h.answerApart(ctx)
				return res, err
			},
		}),
		setRunUpdate(ctx, h, runUpdate[signals.BudgetRequest, signals.BudgetResult]{
			name: signals.Budget, validate: signals.BudgetRequest.Validate,
			wanted: func(_ workflow.Context, req signals.BudgetRequest) error { return r.budget().Wanted(req) },
			accept: func(_ workflow.Context, req signals.BudgetRequest) (signals.BudgetResult, error) {
				return r.budget().Accept(req)
			},
		}),
		setRunUpdate(ctx, h, runUpdate[signals.HandoffRequest, signals.HandoffResult]{
			name: signals.Handoff, validate: signals.HandoffRequest.Validate,
			wanted: func(_ workflow.Context, req signals.HandoffRequest) error { return h.handoffWanted(req) },
			accept: func(ctx workflow.Context, req signals.HandoffRequest) (signals.HandoffResult, error) {
				res, err := r.handoffs().Accept(inRun(ctx), req, true)
				h.answerApart(ctx)
				return res, err
			},
		}),
	)
	return err
}

// runUpdate is an update that needs the run's state: validate checks its
// payload alone, wanted what it needs of the state, accept carries it out.
type runUpdate[Q, A any] struct {
	name     string
	validate func(Q) error
	wanted   func(workflow.Context, Q) error
	accept   func(workflow.Context, Q) (A, error)
}

// setRunUpdate installs u, taken from the run's first moment: its
// validator checks the payload, and the state once the run has it; while
// the run starts, its handler waits for it (whenReady) and checks the
// state then.
func setRunUpdate[Q, A any](ctx workflow.Context, h handlers, u runUpdate[Q, A]) error {
	return setGuardedUpdate(ctx, &h.r.guard, u.name,
		func(ctx workflow.Context, req Q) (A, error) {
			if err := h.whenReady(ctx, u.name, func() error { return u.wanted(ctx, req) }); err != nil {
				var none A
				return none, err
			}
			return u.accept(ctx, req)
		},
		func(ctx workflow.Context, req Q) error {
			if err := validMessage(u.name, req, func() error { return u.validate(req) }); err != nil {
				return err
			}
			if h.r.run == nil {
				return h.startError(u.name) // the handler waits for the run, then checks
			}
			return u.wanted(ctx, req)
		})
}

// editWanted is what an edit needs of the run's state to be taken.
func (h handlers) editWanted(req signals.EditRequest) error {
	r := h.r
	if err := r.edit().Wanted(req); err != nil {
		return err
	}
	return r.handoffs().WhileHandingOver(signals.Edit)
}

// handoffWanted is what a person's handoff needs of the run's state.
func (h handlers) handoffWanted(req signals.HandoffRequest) error {
	r := h.r
	if err := r.handoffs().Wanted(req); err != nil {
		return err
	}
	return r.handoffs().WhileHandingOver(signals.Handoff)
}

// validMessage checks a message's size, its audit's bounds, then its own
// rules.
func validMessage(name string, payload any, validate func() error) error {
	if err := signals.CheckSize(name, payload); err != nil {
		return err
	}
	if a, ok := payload.(interface{ AuditOf() signals.Audit }); ok {
		if err := signals.CheckAudit(name, a.AuditOf()); err != nil {
			return err
		}
	}
	return validate()
}

// boundedAudit refuses a signal whose audit is over its bounds, as its
// update's validator does. A run recorded before the bounds took it
// (version bounded-audit, asked only for such a signal).
func boundedAudit(ctx workflow.Context, name string, audit signals.Audit) error {
	err := signals.CheckAudit(name, audit)
	if err == nil || versionOf(ctx, versionBoundedAudit, 1) < 1 {
		return nil
	}
	return err
}

func notYet(name string) error {
	return fmt.Errorf("%s: not available in this version of unstuck", name)
}

// signalHandlers are what each signal does with its decoded payload; an
// error means the signal is recorded and ignored.
func (r *runner) signalHandlers(ctx workflow.Context) map[string]func(json.RawMessage) (signals.Audit, error) {
	return map[string]func(json.RawMessage) (signals.Audit, error){
		signals.Reply: func(raw json.RawMessage) (signals.Audit, error) {
			return handleMessage(signals.Reply, "a reply", raw, signals.ReplyRequest.Validate, func(req signals.ReplyRequest) error {
				_, err := r.person().AcceptReply(ctx, req)
				return err
			})
		},
		signals.Message: func(raw json.RawMessage) (signals.Audit, error) {
			return handleMessage(signals.Message, "a message", raw, signals.MessageRequest.Validate, func(req signals.MessageRequest) error {
				_, err := r.chat().Accept(req)
				return err
			})
		},
		signals.Approve: func(raw json.RawMessage) (signals.Audit, error) {
			return handleMessage(signals.Approve, "an approve", raw, signals.ApproveRequest.Validate, func(req signals.ApproveRequest) error {
				_, err := r.person().AcceptApproval(ctx, req)
				return err
			})
		},
		signals.Edit: func(raw json.RawMessage) (signals.Audit, error) {
			return handleMessage(signals.Edit, "an edit", raw, signals.EditRequest.Validate, func(req signals.EditRequest) error {
				if err := r.edit().Wanted(req); err != nil {
					return err
				}
				if err := r.handoffs().SignalWhileHandingOver(ctx, signals.Edit); err != nil {
					return err
				}
				_, err := r.edit().Accept(ctx, req, false)
				return err
			})
		},
		signals.Handoff: func(raw json.RawMessage) (signals.Audit, error) {
			return handleMessage(signals.Handoff, "a handoff", raw, signals.HandoffRequest.Validate, func(req signals.HandoffRequest) error {
				return r.handoffs().Signal(ctx, req)
			})
		},
		signals.Budget: func(raw json.RawMessage) (signals.Audit, error) {
			return handleMessage(signals.Budget, "a budget", raw, signals.BudgetRequest.Validate, func(req signals.BudgetRequest) error {
				_, err := r.budget().Accept(req)
				return err
			})
		},
	}
}

// handleMessage decodes a signal's payload as a T, validates it and hands
// it to accept; the audit (by, reason) is read from the payload either way.
func handleMessage[T any](name, what string, raw json.RawMessage, validate func(T) error, accept func(T) error) (signals.Audit, error) {
	audit := auditOf(raw)
	var req T
	if err := json.Unmarshal(raw, &req); err != nil {
		return audit, fmt.Errorf("%s: the payload is not %s object: %v", name, what, err)
	}
	if err := validate(req); err != nil {
		return audit, err
	}
	return audit, accept(req)
}

// signalNames are the signals a run takes, in a fixed order.
var signalNames = []string{signals.Reply, signals.Approve, signals.Edit, signals.Handoff, signals.Budget, signals.Message}

// receiveSignals handles the signal forms of the messages for the life of
// the run, in arrival order. Payloads are received raw and decoded here, so
// one that cannot be decoded (or is too large) is recorded and ignored: the
// SDK would otherwise drop it inside Receive and block this loop until the
// next signal of that name, holding up every other message.
func (r *runner) receiveSignals(ctx workflow.Context) {
	handlers := r.signalHandlers(ctx)
	sel := workflow.NewSelector(ctx)
	for _, name := range signalNames {
		name, handle := name, handlers[name]
		sel.AddReceive(workflow.GetSignalChannel(ctx, name), func(c workflow.ReceiveChannel, _ bool) {
			var raw converter.RawValue
			c.Receive(ctx, &raw)
			payload, err := decodeSignal(name, raw)
			audit := auditOf(payload)
			if err == nil {
				err = boundedAudit(ctx, name, audit)
			}
			if err == nil {
				audit, err = handle(payload)
			}
			if err != nil {
				r.ignoredSignal(ctx, name, audit, err)
			}
		})
	}
	for {
		sel.Select(ctx)
	}
}

// errTooLarge marks a payload over the message bound.
var errTooLarge = errors.New("too large")

// decodeSignal reads a raw signal payload as JSON, bounded in size.
func decodeSignal(name string, raw converter.RawValue) (json.RawMessage, error) {
	if p := raw.Payload(); p != nil {
		if err := signals.CheckRawSize(name, len(p.GetData())); err != nil {
			return nil, fmt.Errorf("%w: %v", errTooLarge, err)
		}
	}
	return decodeJSONPayload(name, raw)
}

// errUndecodable marks a payload that is not JSON.
var errUndecodable = errors.New("undecodable")

// decodeJSONPayload reads a raw signal payload as JSON.
func decodeJSONPayload(name string, raw converter.RawValue) (json.RawMessage, error) {
	p := raw.Payload()
	if p == nil {
		return nil, fmt.Errorf("%s: the signal has no payload", name)
	}
	var payload json.RawMessage
	if err := converter.GetDefaultDataConverter().FromPayload(p, &payload); err != nil {
		return nil, fmt.Errorf("%w: %s: the payload cannot be decoded as JSON: %v", errUndecodable, name, err)
	}
	return payload, nil
}

// drainSignals takes the signals still buffered before the run continues
// as new, where they would be lost, and records them: none of them can act
// between generations, but a conversation's message, which waits in the
// carried inbox for the next generation to take.
func (r *runner) drainSignals(ctx workflow.Context) {
	eachBufferedSignal(ctx, func(name string, raw converter.RawValue) {
		payload, err := decodeSignal(name, raw)
		if err == nil && name == signals.Message {
			err = boundedAudit(ctx, name, auditOf(payload))
		}
		if err == nil && name == signals.Message {
			if _, err = r.signalHandlers(ctx)[name](payload); err == nil {
				return
			}
		}
		if err == nil {
			err = fmt.Errorf("%s: arrived while the run was continuing as new", name)
		}
		r.ignoredSignal(ctx, name, auditOf(payload), err)
	})
}

// eachBufferedSignal takes every signal buffered now, channel by channel
// in signalNames' order, without waiting for more.
func eachBufferedSignal(ctx workflow.Context, take func(name string, raw converter.RawValue)) {
	for _, name := range signalNames {
		ch := workflow.GetSignalChannel(ctx, name)
		for {
			var raw converter.RawValue
			if !ch.ReceiveAsync(&raw) {
				break
			}
			take(name, raw)
		}
	}
}

func auditOf(raw json.RawMessage) signals.Audit {
	var a signals.Audit
	// Any payload, valid or not: one that does not decode has no audit,
	// and its own decoding (handleMessage) reports why it is ignored.
	_ = json.Unmarshal(raw, &a)
	return a
}

// ignoredSignal records a signal the run could not act on, so the audit
// trail shows it and why.
func (r *runner) ignoredSignal(ctx workflow.Context, name string, audit signals.Audit, why error) {
	workflow.GetLogger(ctx).Warn("ignored signal", "signal", name, "error", why.Error())
	// A flood of bad signals must not grow the run without bound: past a
	// bound per kind, they are counted, not recorded one by one.
	r.run.IgnoredSignals++
	if r.run.IgnoredByKind == nil {
		r.run.IgnoredByKind = map[string]int{}
	}
	r.run.IgnoredByKind[name]++
	if r.run.IgnoredByKind[name] > config.MaxIgnoredSignalNodes {
		return
	}
	r.addNode(ctx, Node{Node: signals.Node{
		Kind: signals.KindHuman, Status: signals.StatusSkipped, Parents: []string{},
		Args:  mustJSON(map[string]any{"signal": name, "by": shortText(audit.By, 200), "reason": shortText(audit.Reason, 500)}),
		Error: "ignored " + name + " signal: " + shortText(why.Error(), 1000),
	}, Step: r.run.Step})
}
