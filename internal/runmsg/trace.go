package runmsg

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/unstuck-dev/unstuck/signals"
)

// TraceQuery asks a run's trace query with args (none, or a TracePage).
type TraceQuery func(ctx context.Context, out *signals.Trace, args ...any) error

// maxTracePages bounds the pages of one trace, against a run that would
// answer next forever: MaxTracePageLimit nodes each, far beyond any run.
const maxTracePages = 10_000

// ReadTrace reads a whole trace, page by page. The first query has no
// argument, as every caller of earlier versions asked: a run answers every
// node when they fit in one answer (a run of an earlier version always
// does), else the first page and next. The following pages are asked from
// next with the largest limit; each answer stays under the run's byte
// bound (signals.MaxQueryAnswerBytes) anyway.
func ReadTrace(ctx context.Context, ask TraceQuery) (signals.Trace, error) {
	var tr signals.Trace
	if err := ask(ctx, &tr); err != nil {
		return signals.Trace{}, err
	}
	for pages := 1; tr.Next != ""; pages++ {
		since := tr.Next
		if pages >= maxTracePages {
			return signals.Trace{}, fmt.Errorf("the trace is still not whole after %d pages (next %q)", pages, since)
		}
		var page signals.Trace
		if err := ask(ctx, &page, signals.TracePage{Since: since, Limit: signals.MaxTracePageLimit}); err != nil {
			return signals.Trace{}, err
		}
		if page.Next == since || (len(page.Nodes) == 0 && page.Next != "") {
			return signals.Trace{}, fmt.Errorf("the trace page after %q does not advance (next %q)", since, page.Next)
		}
		tr.Nodes = append(tr.Nodes, page.Nodes...)
		tr.Generation = page.Generation // the run may have continued as new meanwhile
		tr.Next = page.Next
	}
	return tr, nil
}

// RunTraceQuery asks the trace query of one run of a workflow (empty
// runID: its latest).
type RunTraceQuery func(workflowID, runID string) TraceQuery

// maxArchives bounds the archived parts read, against runs that would
// name each other in a circle.
const maxArchives = 10_000

// ReadWholeTrace reads a run's trace with its archived part: a long run
// no longer carries its oldest nodes (nor invalidated ones), and its answer
// names the earlier run (a closed generation) whose trace holds them, which
// may name an earlier one. The nodes come in the order they were made (their ids
// count up), each once; the answer names no archive.
func ReadWholeTrace(ctx context.Context, workflowID, runID string, ask RunTraceQuery) (signals.Trace, error) {
	tr, err := ReadTrace(ctx, ask(workflowID, runID))
	if err != nil {
		return signals.Trace{}, err
	}
	seen := map[string]bool{}
	for _, n := range tr.Nodes {
		seen[n.ID] = true
	}
	// A fork holds no node made after its own start: nodes of its
	// source's generations are read up to the first archive's last.
	limit := 0
	if tr.Archived != nil {
		limit = nodeNumber(tr.Archived.Last)
	}
	for reads := 0; tr.Archived != nil; reads++ {
		a := *tr.Archived
		limit = min(limit, nodeNumber(a.Last))
		if reads >= maxArchives {
			return signals.Trace{}, fmt.Errorf("the trace still names archived nodes after %d earlier runs (next %s)", reads, a.RunID)
		}
		older, err := ReadTrace(ctx, ask(a.WorkflowID, a.RunID))
		if err != nil {
			return signals.Trace{}, fmt.Errorf("reading the archived nodes through %s (run %s of %s): %w", a.Through, a.RunID, a.WorkflowID, err)
		}
		if older.Archived != nil && older.Archived.RunID == a.RunID {
			return signals.Trace{}, fmt.Errorf("run %s names itself as holding its archived nodes", a.RunID)
		}
		for _, n := range older.Nodes {
			num := nodeNumber(n.ID)
			archived := num <= nodeNumber(a.Through) || (num <= limit && n.Status == signals.StatusInvalidated)
			if !seen[n.ID] && archived {
				seen[n.ID] = true
				n.Archived = true
				tr.Nodes = append(tr.Nodes, n)
			}
		}
		tr.Archived = older.Archived
	}
	slices.SortStableFunc(tr.Nodes, func(a, b signals.Node) int { return nodeNumber(a.ID) - nodeNumber(b.ID) })
	return tr, nil
}

// nodeNumber is the counter of a node id ("n42": 42).
func nodeNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "n"))
	return n
}
