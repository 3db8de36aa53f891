package runmsg

import (
	"context"
	"fmt"

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
