package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"

	"github.com/unstuck-dev/unstuck/signals"
)

// queryTimeout bounds a query: without a worker polling the task queue a
// query never gets an answer, and a page should say so rather than hang.
const queryTimeout = 10 * time.Second

// runView is a run's page: its status, its trace as a graph, and what the
// forms need (the calls waiting, the nodes an edit may change).
type runView struct {
	ID, Base    string
	Namespace   string
	Status      signals.Status
	Trace       signals.Trace
	Graph       graph
	Checks      []checkView
	Breakers    []breaker
	Escalations []escalationView
	Editable    []signals.Node
	// Outage says what a run in waiting_outage waits out; "" otherwise.
	Outage string
	// Chat is a conversation's exchange (chat.go); nil for a run that is
	// not one, and outside the run page.
	Chat  *chatView
	Error string
}

// Closed: the run ended (completed, or stopped with a report), so no
// form on its page can act: an edit, a budget decision or a handoff would
// only be refused.
func (v runView) Closed() bool {
	return v.Status.Phase == signals.PhaseCompleted || v.Status.Phase == signals.PhaseStopped
}

// BudgetWaits: the run waits at the budget rung (a budget node pending),
// the only time a budget decision is taken; at any other time the form
// could only be refused.
func (v runView) BudgetWaits() bool {
	if v.Closed() {
		return false
	}
	for _, n := range v.Trace.Nodes {
		if n.Kind == signals.KindBudget && n.Status == signals.StatusPending && !n.Archived {
			return true
		}
	}
	return false
}

type breaker struct{ Tool, State string }

// runBase is the run's path, its id escaped as one path segment.
func runBase(id string) string { return signals.RunPage(id) }

// loadRun queries a run's status and whole trace.
func (c *Console) loadRun(ctx context.Context, id string) (runView, error) {
	v := runView{ID: id, Base: runBase(id), Namespace: c.opts.Namespace}
	if err := c.query(ctx, id, signals.QueryStatus, &v.Status); err != nil {
		return v, err
	}
	tr, err := c.wholeTrace(ctx, id)
	if err != nil {
		return v, err
	}
	v.Trace = tr
	v.Graph = layoutGraph(tr, v.Status.Loops)
	v.Checks = checksOf(tr)
	for tool, state := range v.Status.Breakers {
		v.Breakers = append(v.Breakers, breaker{Tool: tool, State: state})
	}
	sort.Slice(v.Breakers, func(i, j int) bool { return v.Breakers[i].Tool < v.Breakers[j].Tool })
	if o := v.Status.Outage; o != nil {
		v.Outage = o.Describe(c.opts.Now())
	}
	for _, n := range tr.Nodes {
		switch {
		case n.Kind == signals.KindEscalation:
			v.Escalations = append(v.Escalations, readEscalation(n))
		}
		if editable(n) {
			v.Editable = append(v.Editable, n)
		}
	}
	return v, nil
}

// editable: the kinds an edit changes (signals.EditRequest), while still
// part of the run.
func editable(n signals.Node) bool {
	switch n.Kind {
	case signals.KindTask, signals.KindRequest, signals.KindCall, signals.KindHuman:
		return n.Status != signals.StatusInvalidated && !n.Archived
	}
	return false
}

// query asks a run's query and decodes the answer, wording the usual
// failures.
func (c *Console) query(ctx context.Context, id, name string, out any, args ...any) error {
	return c.queryRun(ctx, id, "", name, out, args...)
}

// queryRun is query of one run of the workflow id (runID "": its latest).
func (c *Console) queryRun(ctx context.Context, id, runID, name string, out any, args ...any) error {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	v, err := c.tc.QueryWorkflow(qctx, id, runID, name, args...)
	var notFound *serviceerror.NotFound
	why, failedAtStart := signals.FailedToStart(err)
	switch {
	case errors.As(err, &notFound):
		return fmt.Errorf("run %s not found in namespace %q: %w", id, c.opts.Namespace, errNotFound)
	case failedAtStart:
		return fmt.Errorf("run %s failed at its start: %s: %w", id, why, errFailedAtStart)
	case err != nil && qctx.Err() != nil && ctx.Err() == nil:
		return fmt.Errorf("the %s query of %s got no answer within %s: is a worker polling its task queue?", name, id, queryTimeout)
	case err != nil:
		return fmt.Errorf("the %s query of %s: %w", name, id, err)
	}
	if err := v.Get(out); err != nil {
		return fmt.Errorf("decode the %s query answer of %s: %w", name, id, err)
	}
	return nil
}

var errNotFound = errors.New("not found")

// errFailedAtStart: the run failed at its start, so it has no state to
// show (an answer about the run, not a failure of the console's).
var errFailedAtStart = errors.New("it has no trace")

// statusOf is the HTTP status for a failed load.
func statusOf(err error) int {
	switch {
	case errors.Is(err, errNotFound):
		return http.StatusNotFound
	case errors.Is(err, errFailedAtStart):
		return http.StatusOK
	}
	return http.StatusBadGateway
}

// runPage is GET /runs/{id}: the live part (status, graph) and the forms.
func (c *Console) runPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	v, err := c.loadRun(r.Context(), id)
	status := http.StatusOK
	if err != nil {
		v.Error, status = err.Error(), statusOf(err)
	} else {
		v.Chat = chatOf(v)
	}
	c.render(w, status, "run.html", v)
}

// PendingIDs are the calls waiting for approval, "n3,n7": what the
// approvals section shows, so its refresh can tell a change.
func (v runView) PendingIDs() string {
	ids := make([]string, len(v.Status.PendingApprovals))
	for i, p := range v.Status.PendingApprovals {
		ids[i] = p.CallID
	}
	return strings.Join(ids, ",")
}

// runApprovals is GET /runs/{id}/approvals?have=n3,n7: the approvals
// section, only when the calls waiting are no longer those the page has
// (else 204, which htmx leaves alone), so a refresh never throws away
// what a person is typing into a form that still applies.
func (c *Console) runApprovals(w http.ResponseWriter, r *http.Request) {
	v := runView{ID: r.PathValue("id"), Base: runBase(r.PathValue("id"))}
	if err := c.query(r.Context(), v.ID, signals.QueryStatus, &v.Status); err != nil {
		w.WriteHeader(http.StatusNoContent) // the live part shows the error
		return
	}
	if v.PendingIDs() == r.URL.Query().Get("have") {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	c.render(w, http.StatusOK, "approvals", v)
}

// runLive is GET /runs/{id}/live: the status and graph sections alone.
// A failed query answers 200 with the error inside, so the refresh shows
// it and keeps trying.
func (c *Console) runLive(w http.ResponseWriter, r *http.Request) {
	v, err := c.loadRun(r.Context(), r.PathValue("id"))
	if err != nil {
		v.Error = err.Error()
	}
	c.render(w, http.StatusOK, "live", v)
}

// compactJSON is raw on one line, for a summary; raw that is not JSON is
// shown as is.
func compactJSON(raw json.RawMessage) string { return reformatJSON(raw, "") }

// indentJSON is raw indented, for a textarea.
func indentJSON(raw json.RawMessage) string { return reformatJSON(raw, "  ") }

func reformatJSON(raw json.RawMessage, indent string) string {
	if len(raw) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // a large number stays as written
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return string(raw)
	}
	// An encoder, not Marshal: what a person reads keeps <, > and & as
	// they are (the page escapes them), and without an indent it is one
	// line.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
