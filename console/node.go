package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/internal/runmsg"
	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows/model"
)

// A node's details open beside the graph: GET /runs/{id}/nodes/{node}
// answers the panel (a fragment htmx swaps in) with what the node holds:
// its task and who gave it, a request's messages and reply, a call's
// arguments and result or error with its class, the check and the
// repairs applied, the output, and when it ran. Every value is shown as
// the trace holds it, escaped by the template; a large one is cut with
// the whole behind "show all".

// nodeView is one node's panel.
type nodeView struct {
	RunID, Base string
	Node        signals.Node
	// Facts are what the run holds beyond the trace query's answer (the
	// failure class, the step, the spend); FactsError says why they are
	// missing.
	Facts      nodeFacts
	FactsError string
	Parents    []signals.Node
	Children   []signals.Node
	// Repairs are the repairs of a call's arguments (its repair nodes);
	// a repair node shows its own as Repair.
	Repairs []repairView
	Repair  *repairView
	Check   *checkView
	// Edits are the edits that changed this node.
	Edits []signals.Node
	// Messages are what a model request was sent (MessagesNote says why
	// there are none).
	Messages     []activities.Message
	MessagesNote string
	Timing       timing
	// task is a task node's args, decoded once (taskDecoded: they did).
	task        taskArgs
	taskDecoded bool
}

// nodePanel is GET /runs/{id}/nodes/{node}.
func (c *Console) nodePanel(w http.ResponseWriter, r *http.Request) {
	id, nodeID := r.PathValue("id"), r.PathValue("node")
	tr, err := c.wholeTrace(r.Context(), id)
	if err != nil {
		c.render(w, statusOf(err), "error", err.Error())
		return
	}
	v, ok := nodeViewOf(id, nodeID, tr)
	if !ok {
		c.render(w, http.StatusNotFound, "error", fmt.Sprintf("run %s has no node %s", id, nodeID))
		return
	}
	if !v.Node.Archived {
		if v.Facts, err = c.nodeFacts(r.Context(), id, nodeID); err != nil {
			v.FactsError = err.Error()
		}
	}
	if v.Node.Kind == signals.KindRequest {
		v.Messages, v.MessagesNote = c.requestMessages(r.Context(), id, v.Node, tr)
	}
	c.render(w, http.StatusOK, "node", v)
}

// wholeTrace reads every node of the run: a long run's oldest nodes from
// the closed generations that hold them, as unstuck trace reads them.
func (c *Console) wholeTrace(ctx context.Context, id string) (signals.Trace, error) {
	return runmsg.ReadWholeTrace(ctx, id, "", func(wid, rid string) runmsg.TraceQuery {
		return func(ctx context.Context, out *signals.Trace, args ...any) error {
			return c.queryRun(ctx, wid, rid, signals.QueryTrace, out, args...)
		}
	})
}

// nodeViewOf is node nodeID's panel, from the trace alone; false when the
// trace has no such node.
func nodeViewOf(runID, nodeID string, tr signals.Trace) (nodeView, bool) {
	byID := make(map[string]signals.Node, len(tr.Nodes))
	for _, n := range tr.Nodes {
		byID[n.ID] = n
	}
	n, ok := byID[nodeID]
	if !ok {
		return nodeView{}, false
	}
	v := nodeView{RunID: runID, Base: runBase(runID), Node: n, Timing: timingOf(n, byID)}
	for _, p := range n.Parents {
		if pn, ok := byID[p]; ok {
			v.Parents = append(v.Parents, pn)
		}
	}
	for _, m := range tr.Nodes {
		if !slices.Contains(m.Parents, nodeID) {
			continue
		}
		switch m.Kind {
		case signals.KindRepair:
			v.Repairs = append(v.Repairs, repairOf(m))
		case signals.KindEdit:
			if m.Parents[0] == nodeID { // an edit's first parent is the node it changed
				v.Edits = append(v.Edits, m)
			}
		}
		v.Children = append(v.Children, m)
	}
	if n.Kind == signals.KindTask {
		v.taskDecoded = json.Unmarshal(n.Args, &v.task) == nil
	}
	if n.Kind == signals.KindRepair {
		r := repairOf(n)
		v.Repair = &r
	}
	if n.Check != nil {
		ck := checkOf(n, byID)
		v.Check = &ck
	}
	return v, true
}

// Who is who gave the node: a task's by (the person who started the run
// or sent the message), an edit's or a handoff's person.
func (v nodeView) Who() string { return v.Node.By }

// repairView is one repair attempt: the strategies applied, the
// arguments it made, and why it could not when it failed.
type repairView struct {
	ID, Status, Error, Reason string
	Steps                     []repairStep
	Args                      json.RawMessage
}

// repairStep is one strategy of a repair, as workflows/mend records it.
type repairStep struct {
	Strategy string          `json:"strategy"`
	Path     string          `json:"path"`
	Before   json.RawMessage `json:"before"`
	After    json.RawMessage `json:"after"`
	Reason   string          `json:"reason"`
}

// repairOf reads a repair node's output; an output of another shape is
// shown as it is under Args.
func repairOf(n signals.Node) repairView {
	v := repairView{ID: n.ID, Status: string(n.Status), Error: n.Error}
	var out struct {
		Repairs []repairStep    `json:"repairs"`
		Reason  string          `json:"reason"`
		Args    json.RawMessage `json:"args"`
	}
	if json.Unmarshal(n.Output, &out) != nil {
		v.Args = n.Output
		return v
	}
	v.Steps, v.Reason, v.Args = out.Repairs, out.Reason, out.Args
	return v
}

// timing is when a node ran. The trace records when a node last changed
// (at); a node starts once its parents settle, so Started is the latest
// at of its parents (zero for a node without one).
type timing struct {
	Started, At time.Time
	Settled     bool
}

func timingOf(n signals.Node, byID map[string]signals.Node) timing {
	t := timing{At: n.At, Settled: n.Status.Settled()}
	if n.Kind == signals.KindEdit || n.Kind == signals.KindTask {
		return t // made at once, on a person's word: no time of its own
	}
	for _, p := range n.Parents {
		// A parent invalidated later changed after this node began.
		if pn, ok := byID[p]; ok && pn.Status != signals.StatusInvalidated && !pn.At.After(n.At) && pn.At.After(t.Started) {
			t.Started = pn.At
		}
	}
	return t
}

// Duration is from Started to the node's settling; 0 when either is not
// known.
func (t timing) Duration() time.Duration {
	if !t.Settled || t.Started.IsZero() || t.At.IsZero() {
		return 0
	}
	return t.At.Sub(t.Started)
}

// taskArgs are a task node's args: a run's task and input, or a
// conversation's message; by is in the node's By.
type taskArgs struct {
	Task    *string         `json:"task"`
	Message *string         `json:"message"`
	Input   json.RawMessage `json:"input"`
}

// TaskText is a task node's text: the run's task or the message; args of
// another shape are shown as they are.
func (v nodeView) TaskText() string {
	a := v.task
	switch {
	case !v.taskDecoded:
	case a.Task != nil:
		return *a.Task
	case a.Message != nil:
		return *a.Message
	}
	return indentJSON(v.Node.Args)
}

// TaskInput is a task's structured input, nil when it has none.
func (v nodeView) TaskInput() json.RawMessage {
	a := v.task
	if !v.taskDecoded || len(a.Input) == 0 {
		return nil
	}
	switch string(a.Input) {
	case "{}", "null":
		return nil
	}
	return a.Input
}

// nodeRef is a link to a node's details.
type nodeRef struct{ Base, ID string }

// replyView is a request's reply (its node's output): what the model
// said and the calls it asked for, each call's arguments as JSON when
// they are.
type replyView struct {
	Content, Refusal, FinishReason string
	Calls                          []activities.ToolCall
}

// Reply reads a request's output; nil when it is not a reply (it is then
// shown as it is).
func (v nodeView) Reply() *replyView {
	var r model.Record
	if v.Node.Kind != signals.KindRequest || json.Unmarshal(v.Node.Output, &r) != nil {
		return nil
	}
	return &replyView{Content: r.Content, Refusal: r.Refusal, FinishReason: r.FinishReason, Calls: r.ToolCalls}
}
