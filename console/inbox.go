package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// maxInboxMessage bounds each message of the conversation shown: the
// trace keeps it whole.
const maxInboxMessage = 2000

// inboxItem is one run waiting for a person, in seed 004's friendly
// view: who handed it over and why, the summary, the suggested next
// action, and the conversation so far.
type inboxItem struct {
	ID, Base, Agent string
	Task            string
	From, Reason    string
	Summary         string
	Suggested       string
	Question        string // what the agent asked the person (a human node)
	Conversation    []inboxMessage
	Error           string
}

type inboxMessage struct{ Role, Text string }

type inboxView struct {
	Namespace string
	Items     []inboxItem
	Have      string // the waiting runs' ids, sorted: see waitingIDs
	Error     string
}

// PollURL is where the list asks whether the runs waiting changed; the
// ids are escaped, as a workflow id may hold any character.
func (v inboxView) PollURL() string {
	return "/inbox/items?have=" + url.QueryEscape(v.Have)
}

// inbox is GET /inbox: the runs whose phase is awaiting_human, each with
// its context and a reply box.
func (c *Console) inbox(w http.ResponseWriter, r *http.Request) {
	v := inboxView{Namespace: c.opts.Namespace}
	rows, err := c.listRuns(r.Context(), filters{Phase: string(signals.PhaseAwaitingHuman)})
	if err != nil {
		v.Error = err.Error()
		c.render(w, http.StatusBadGateway, "inbox.html", v)
		return
	}
	c.fillInbox(r, &v, rows)
	c.render(w, http.StatusOK, "inbox.html", v)
}

// inboxItems is GET /inbox/items?have=a,b: the list, only when the runs
// waiting are no longer those the page has (else 204, which htmx leaves
// alone), so a refresh never throws away what a person is typing. A
// failed listing is a 204 too: the page keeps what it has and asks again.
func (c *Console) inboxItems(w http.ResponseWriter, r *http.Request) {
	v := inboxView{Namespace: c.opts.Namespace}
	rows, err := c.listRuns(r.Context(), filters{Phase: string(signals.PhaseAwaitingHuman)})
	if err != nil || waitingIDs(rows) == r.URL.Query().Get("have") {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	c.fillInbox(r, &v, rows)
	c.render(w, http.StatusOK, "inbox-items", v)
}

// inboxReadsInFlight is how many waiting runs the inbox reads at once: a
// run whose worker is down answers only when its query times out, and
// must not hold up the others.
const inboxReadsInFlight = 8

// fillInbox loads each waiting run's context into v.
func (c *Console) fillInbox(r *http.Request, v *inboxView, rows []runRow) {
	v.Have = waitingIDs(rows)
	v.Items = make([]inboxItem, len(rows))
	var g errgroup.Group
	g.SetLimit(inboxReadsInFlight)
	for i, row := range rows {
		g.Go(func() error {
			item := inboxItem{ID: row.ID, Base: runBase(row.ID), Agent: row.Agent}
			run, err := c.loadRun(r.Context(), row.ID)
			if err != nil {
				item.Error = err.Error()
			} else {
				item.fill(run)
			}
			v.Items[i] = item
			return nil
		})
	}
	_ = g.Wait()
}

// waitingIDs are the rows' workflow ids, sorted (the listing's order may
// change while the set does not) and joined: "a,b".
func waitingIDs(rows []runRow) string {
	ids := make([]string, len(rows))
	for i, row := range rows {
		ids[i] = row.ID
	}
	sort.Strings(ids)
	return strings.Join(ids, ",")
}

// fill reads the item's context from the run: the last handoff that
// took the run, and a question still open after it.
func (it *inboxItem) fill(run runView) {
	it.Agent = run.Status.Agent
	for _, n := range run.Trace.Nodes {
		switch {
		case n.Kind == signals.KindTask && it.Task == "":
			it.Task = taskText(n)
		case n.Kind == signals.KindHandoff && n.Status == signals.StatusCompleted:
			var hc workflows.HandoffContext
			if json.Unmarshal(n.Output, &hc) != nil {
				continue
			}
			it.From, it.Reason, it.Summary, it.Suggested = firstOf(hc.SourceAgent, n.From), firstOf(hc.Reason, n.Reason), hc.CurrentProblem, hc.SuggestedAction
			if hc.InitialQuery != "" {
				it.Task = hc.InitialQuery
			}
			it.Conversation = conversation(hc.Conversation)
			it.Question = ""
		case n.Kind == signals.KindHuman && (n.Status == signals.StatusRunning || n.Status == signals.StatusPending):
			var ask struct {
				Why string `json:"why"`
			}
			_ = json.Unmarshal(n.Args, &ask)
			it.Question = firstOf(ask.Why, "the agent asks for a person")
		}
	}
}

// taskText is the task node's text: its output, a string or {"task"}.
func taskText(n signals.Node) string {
	for _, raw := range []json.RawMessage{n.Output, n.Args} {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
		var t struct {
			Task string `json:"task"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Task != "" {
			return t.Task
		}
	}
	return ""
}

// conversation is the messages a person reads: what was said, and the
// calls made, as one line each; the system prompt is left out.
func conversation(msgs []activities.Message) []inboxMessage {
	var out []inboxMessage
	for _, m := range msgs {
		if m.Role == "system" {
			continue
		}
		text := m.Content
		var calls []string
		for _, call := range m.ToolCalls {
			calls = append(calls, fmt.Sprintf("%s(%s)", call.Name, clip(call.Args, 200)))
		}
		if len(calls) > 0 {
			text = strings.TrimSpace(text + "\ncalls " + strings.Join(calls, ", "))
		}
		role := m.Role
		if m.Role == "tool" {
			role = "tool result"
		}
		out = append(out, inboxMessage{Role: role, Text: clip(text, maxInboxMessage)})
	}
	return out
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
