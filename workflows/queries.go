package workflows

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/activities"
	"github.com/unstuck-dev/unstuck/signals"
)

// registerQueries installs the trace, status and (internal) model context
// queries; they read the run and change nothing. A query that panics
// answers an error and the run goes on (guardedQuery).
//
// The trace and model context handlers take an optional argument (a
// pointer: the SDK passes nil when a caller sends none, as the Web UI, the
// temporal CLI and earlier versions do) that pages a long answer, so no
// answer outgrows Temporal's limit on query results.
func (r *runner) registerQueries(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, signals.QueryTrace, guardedQueryOf("the trace query", func(page *signals.TracePage) (signals.Trace, error) {
		if r.run == nil {
			return signals.Trace{}, notStarted(r.startFailed)
		}
		return tracePage(r.run, page)
	})); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, signals.QueryStatus, guardedQuery("the status query", func() (signals.Status, error) {
		if r.run == nil {
			return signals.Status{}, notStarted(r.startFailed)
		}
		return r.status(), nil
	})); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, signals.QueryRun, guardedQuery("the run query", func() ([]byte, error) {
		if r.run == nil {
			return nil, notStarted(r.startFailed)
		}
		return packRun(r.run)
	})); err != nil {
		return err
	}
	return workflow.SetQueryHandler(ctx, signals.QueryModelContext, guardedQueryOf("the model context query", func(q *activities.ModelContextQuery) (activities.ModelContextPage, error) {
		if r.run == nil {
			return activities.ModelContextPage{}, notStarted(r.startFailed)
		}
		return modelContextPage(r.run, q)
	}))
}

// notStarted answers a query of a run that has no state: it is starting
// (it resolves its agent), or it failed at its start, and why.
func notStarted(failed string) error {
	if failed == "" {
		return errors.New(signals.RunStarting)
	}
	return fmt.Errorf("%s: %s", signals.RunFailedToStart, failed)
}

// tracePage answers the trace query: without an argument every node, or
// the first MaxQueryAnswerBytes of them with Next; with one, the page it
// asks for (signals.TracePage).
func tracePage(run *Run, page *signals.TracePage) (signals.Trace, error) {
	start, limit := 0, len(run.Nodes)
	if page != nil {
		switch {
		case page.Limit < 0:
			return signals.Trace{}, fmt.Errorf("trace: limit is %d (want 1 to %d, or 0 for %d)",
				page.Limit, signals.MaxTracePageLimit, signals.DefaultTracePageLimit)
		case page.Limit == 0:
			limit = signals.DefaultTracePageLimit
		default:
			limit = min(page.Limit, signals.MaxTracePageLimit)
		}
		if page.Since != "" {
			i := run.nodeIndex(page.Since)
			switch {
			case i >= 0:
				start = i + 1
			case run.isArchived(page.Since):
				// The nodes made after it that the run still holds.
				start = run.firstAfter(page.Since)
			default:
				return signals.Trace{}, fmt.Errorf("trace: since %q names no node of this run", page.Since)
			}
		}
	}
	all := make([]signals.Node, 0, len(run.Nodes)-start)
	for _, n := range run.Nodes[start:] {
		if page == nil || page.ChangedAfter == nil || n.At.After(*page.ChangedAfter) {
			all = append(all, n.Node)
		}
	}
	envelope := len(mustJSON(signals.Trace{Generation: run.Generation, Nodes: []signals.Node{}})) + nextAllowance
	n := fitting(all, limit, signals.MaxQueryAnswerBytes-envelope)
	tr := signals.Trace{Generation: run.Generation, Nodes: all[:n:n], Archived: archivedNodes(run.Archived)}
	if n < len(all) {
		tr.Next = all[n-1].ID
	}
	return tr, nil
}

// modelContextPage answers the model context query: without an argument
// the whole conversation (a model activity of an earlier version reads no
// Next, so a page would pass for the whole), with one the page it asks for
// (activities.ModelContextQuery); the tools come with the first page, the
// digest of what precedes the page when asked.
func modelContextPage(run *Run, q *activities.ModelContextQuery) (activities.ModelContextPage, error) {
	msgs := buildConversation(run)
	if q == nil {
		return activities.ModelContextPage{Messages: msgs, Tools: toolDefs(run)}, nil
	}
	if q.Since < 0 || q.Since > len(msgs) {
		return activities.ModelContextPage{}, fmt.Errorf("model context: since %d is outside the conversation (0 to %d)", q.Since, len(msgs))
	}
	limit := len(msgs)
	if q.Limit > 0 {
		limit = q.Limit
	}
	tools := toolDefs(run)
	page := activities.ModelContextPage{Messages: []activities.Message{}}
	if q.Since == 0 {
		page.Tools = tools
	}
	if q.Digest {
		page.Digest = activities.ConversationDigest(msgs[:q.Since], tools)
	}
	envelope := len(mustJSON(page)) + nextAllowance
	rest := msgs[q.Since:]
	n := fitting(rest, limit, signals.MaxQueryAnswerBytes-envelope)
	page.Messages = rest[:n:n]
	if q.Since+n < len(msgs) {
		page.Next = q.Since + n
	}
	return page, nil
}

// nextAllowance is room in a page for its "next" field.
const nextAllowance = 64

// fitting is how many of items, from the first, make a page: at most
// limit, at most budget bytes of JSON in all (each with its comma), and
// at least one when there is one, so that paging always makes progress.
func fitting[T any](items []T, limit, budget int) int {
	used := 0
	for i := range items {
		if i >= limit {
			return i
		}
		b, err := json.Marshal(items[i])
		size := len(b) + 1
		if err != nil {
			size = 0 // the answer's own encoding will report it
		}
		if i > 0 && used+size > budget {
			return i
		}
		used += size
	}
	return len(items)
}

func (r *runner) status() signals.Status {
	return signals.Status{
		Agent:            r.run.Spec.Agent.Name,
		Phase:            r.run.Phase,
		Step:             r.run.Step,
		Generation:       r.run.Generation,
		PendingApprovals: r.person().PendingApprovals(r.seenAt),
		PendingReply:     r.person().PendingReply(r.seenAt),
		Loops:            r.run.Loops,
		LoopsDropped:     r.run.LoopsDropped,
		Breakers:         r.run.LoopEscape.BreakerStates(),
		HandoffPath:      r.run.HandoffPath,
		LastError:        r.run.LastError,
		Fallbacks:        r.fallbacks(),
		ModelFallbacks:   r.run.ModelFallbacks,
		Unverified:       r.run.Unverified,
		Spend:            r.budget().Spent(r.seenAt),
		Conversation:     r.run.Spec.Agent.Conversation != nil,
		Outage:           r.parked.Status(),
	}
}

// archivedNodes is what the trace query says of the archived part.
func archivedNodes(a *Archive) *signals.ArchivedNodes {
	if a == nil {
		return nil
	}
	return &signals.ArchivedNodes{Nodes: a.Nodes, Through: a.Through, Last: a.Last, WorkflowID: a.WorkflowID, RunID: a.RunID, Generation: a.Generation}
}
