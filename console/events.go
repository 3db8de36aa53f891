package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"go.temporal.io/api/serviceerror"

	"github.com/unstuck-dev/unstuck/internal/feed"
	"github.com/unstuck-dev/unstuck/signals"
)

// eventsInterval is how often the events stream reads the run.
const eventsInterval = 250 * time.Millisecond

// runEvents is GET /runs/{id}/events: the run's events (internal/feed) as
// Server-Sent Events, from its start, or after the Last-Event-ID a client
// sends (as a reconnecting EventSource does) or else ?after=ID, until the
// run ends or the console stops. A malformed id, or one that names no
// node of the run, is a 400; a stream over the console's bounds is
// refused (streams.go).
func (c *Console) runEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	// Bounded before anything is asked of Temporal, and ended when the
	// console stops.
	ctx, done, no := c.streams.openFor(r.Context(), id)
	if no != nil {
		no.write(w)
		return
	}
	defer done()
	if _, err := c.tc.DescribeWorkflowExecution(ctx, id, ""); err != nil {
		var notFound *serviceerror.NotFound
		if errors.As(err, &notFound) {
			http.Error(w, fmt.Sprintf("run %s not found in namespace %q", id, c.opts.Namespace), http.StatusNotFound)
			return
		}
		http.Error(w, "describe run "+id+": "+err.Error(), http.StatusBadGateway)
		return
	}
	// A page starts its stream after what it shows (?after=, as unstuck
	// follow --after); an EventSource that reconnects says where it is.
	var from feed.Cursor
	last, named := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if last == "" {
		last, named = r.URL.Query().Get("after"), "after"
	}
	if last != "" {
		var err error
		if from, err = feed.ParseID(last); err == nil && from.Node != "" && from.Phase == "" {
			var tr signals.Trace
			err = c.query(ctx, id, signals.QueryTrace, &tr, signals.TracePage{Since: from.Node, Limit: 1})
		}
		if err != nil {
			http.Error(w, named+": "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "this server cannot stream events", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher.Flush() // the client knows the stream is open (EventSource "open") before an event comes
	src := feed.Run{Client: c.tc, WorkflowID: id, QueryTimeout: queryTimeout}
	err := feed.Follow(ctx, src, from, eventsInterval, func(e feed.Event) error {
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if e.ID != "" {
			// A text event has none, so a reconnecting client's
			// Last-Event-ID stays the last durable event's.
			fmt.Fprintf(w, "id: %s\n", e.ID)
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Type, data); err != nil {
			return err
		}
		flusher.Flush()
		return nil
	})
	if err != nil && ctx.Err() == nil {
		data, _ := json.Marshal(map[string]string{"error": err.Error()})
		fmt.Fprintf(w, "event: error\ndata: %s\n\n", data)
	}
}
