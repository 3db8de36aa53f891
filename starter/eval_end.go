package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/unstuck-dev/unstuck/eval"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// Every run an eval starts ends before the eval does: by itself, or
// ended by the eval (cancelled, as `temporal workflow cancel` does, then
// terminated if it has not closed). The eval's workers stop with it, and
// nothing else polls its task queue: a run left open would wait there for
// ever.

const (
	// turnPoll is how often a run is asked whether it waits for a
	// person or for the next message.
	turnPoll = 250 * time.Millisecond
	// endGrace is how long a cancelled run has to close before it is
	// terminated.
	endGrace = 10 * time.Second
)

// waited is how the wait for a run ended.
type waited struct {
	// closed: the run closed, and res or err is its result.
	closed bool
	res    workflows.AgentResult
	err    error
	// conversation is what a conversation that answered every message of
	// its case did; it is still open, waiting for the next.
	conversation *eval.Outcome
	// why says why a run that did not close is not done.
	why string
	// phase is the run's phase when last asked.
	phase signals.Phase
}

// await waits for wr's run to close, sending a conversation the case's
// messages, each once the run waits for it having taken the ones before.
// It returns once the run closed, a conversation answered the last
// message, a message was refused, or ctx is done.
func (r *evalRunner) await(ctx context.Context, wr client.WorkflowRun, messages []eval.Message) waited {
	id := wr.GetID()
	got := make(chan waited, 1)
	go func() { got <- runResult(ctx, wr) }()
	tick := time.NewTicker(turnPoll)
	defer tick.Stop()
	sent := 0
	var phase signals.Phase
	for {
		select {
		case w := <-got:
			w.phase = phase
			return w
		case <-tick.C:
		}
		var st signals.Status
		if queryLatest(ctx, r.c, id, signals.QueryStatus, &st) != nil {
			continue
		}
		phase = st.Phase
		if phase != signals.PhaseAwaitingUser {
			continue
		}
		tr, err := queryTrace(ctx, r.c, id, "")
		if err != nil || eval.MessagesTaken(tr.Nodes) != sent {
			continue // the last message is not taken yet
		}
		if sent == len(messages) {
			o := eval.ConversationOutcome(id, st, tr.Nodes)
			return waited{conversation: &o}
		}
		m := messages[sent]
		req := signals.MessageRequest{Text: m.Text, Audit: signals.Audit{By: m.By}}
		if err := runmsg.Update(ctx, r.c, id, "", signals.Message, req, &signals.MessageResult{}); err != nil {
			return waited{err: err, why: fmt.Sprintf("the run refused the case's messages[%d]: %v", sent, err)}
		}
		sent++
	}
}

// runResult waits for wr's run to close, until ctx is done: an error that
// is not the run's (a call's own deadline, the server busy) is not its
// end, and it asks again.
func runResult(ctx context.Context, wr client.WorkflowRun) waited {
	for {
		var w waited
		w.err = wr.Get(ctx, &w.res)
		var ended *temporal.WorkflowExecutionError
		if w.closed = w.err == nil || errors.As(w.err, &ended); w.closed || ctx.Err() != nil {
			return w
		}
		select {
		case <-ctx.Done():
			return w
		case <-time.After(turnPoll):
		}
	}
}

// notDone says why a run had not closed when its wait ended: the eval
// interrupted (eval, its context, done), or the timeout, and the person
// it waited for, if it did.
func (r *evalRunner) notDone(eval context.Context, phase signals.Phase) string {
	if eval.Err() != nil {
		return "the eval was interrupted"
	}
	why := fmt.Sprintf("no result within --timeout %s", r.timeout)
	switch phase {
	case signals.PhaseAwaitingApproval, signals.PhaseAwaitingHuman:
		why += fmt.Sprintf(" (it waited in phase %s, for a person; an eval answers none)", phase)
	case signals.PhaseWaitingOutage:
		why += fmt.Sprintf(" (it waited in phase %s: a tool it calls was down)", phase)
	case "":
	default:
		why += fmt.Sprintf(" (last seen in phase %s)", phase)
	}
	return why
}

// end ends a run the eval leaves open, on a context of its own (the
// eval's may be done): cancelled, then terminated when it has not closed
// within endGrace. A run that cannot be ended is named on the progress
// lines, with the command that ends it.
func (r *evalRunner) end(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*endGrace)
	defer cancel()
	if r.c.CancelWorkflow(ctx, id, "") == nil {
		wait, stop := context.WithTimeout(ctx, endGrace)
		closed := runResult(wait, r.c.GetWorkflow(wait, id, "")).closed
		stop()
		if closed {
			return
		}
	}
	if err := r.c.TerminateWorkflow(ctx, id, "", "unstuck eval run: the run did not end by itself, nor when cancelled"); err != nil && !closedAlready(ctx, r.c, id) {
		r.mu.Lock()
		fmt.Fprintf(r.progress, "eval: could not end run %s: %v; end it with: temporal workflow terminate --workflow-id %s\n", id, err, id)
		r.mu.Unlock()
	}
}

// closedAlready says whether id's latest run has closed.
func closedAlready(ctx context.Context, c client.Client, id string) bool {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	return err == nil && d.GetWorkflowExecutionInfo().GetCloseTime() != nil
}

// openRuns are the runs an eval started and has not seen end.
type openRuns struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (o *openRuns) add(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ids == nil {
		o.ids = map[string]bool{}
	}
	o.ids[id] = true
}

func (o *openRuns) remove(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.ids, id)
}

func (o *openRuns) list() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var ids []string
	for id := range o.ids {
		ids = append(ids, id)
	}
	return ids
}

// endOpen ends every run the eval started and has not seen end, whatever
// stopped it from ending them where it waited for them.
func (r *evalRunner) endOpen() {
	var wg sync.WaitGroup
	for _, id := range r.open.list() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.end(id)
			r.open.remove(id)
		}()
	}
	wg.Wait()
}
