package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/unstuck-dev/unstuck/app/replay"
)

// queriedRuns are the runs query matches, at most limit, as sources that
// read each run's whole history from Temporal. A query the server refuses
// or that matches nothing is bad input (exit 2): nothing is replayed.
func (c *cli) queriedRuns(ctx context.Context, tc client.Client, query string, limit int, stderr io.Writer) ([]replay.Source, error) {
	runs, more, err := c.listRuns(ctx, tc, query, limit)
	var invalid *serviceerror.InvalidArgument
	switch {
	case errors.As(err, &invalid):
		return nil, notRun(fmt.Errorf("--query %q refused by the server: %s", query, invalid.Message))
	case err != nil:
		return nil, err
	case len(runs) == 0:
		return nil, notRun(fmt.Errorf("no run matches --query %q", query))
	case more:
		fmt.Fprintf(stderr, "unstuck: --limit %d reached: more runs match, replaying the first %d\n", limit, limit)
	}
	sources := make([]replay.Source, len(runs))
	for i, ex := range runs {
		sources[i] = runSource(tc, ex.GetExecution().GetWorkflowId(), ex.GetExecution().GetRunId())
	}
	return sources, nil
}

// runSource reads one run's whole history, every page, when it is replayed.
func runSource(tc client.Client, workflowID, runID string) replay.Source {
	return replay.Source{Name: workflowID + "/" + runID, Load: func(ctx context.Context) (*historypb.History, error) {
		hist := &historypb.History{}
		it := tc.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return nil, fmt.Errorf("read the history of %s/%s: %w", workflowID, runID, err)
			}
			hist.Events = append(hist.Events, e)
		}
		return hist, nil
	}}
}
