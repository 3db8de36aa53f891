package load

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
)

// Step latencies come from the runs' histories, not from the trace query.
// A history is the server's record, read without a worker: a trace query
// of a closed run makes a worker replay the run's whole history to answer,
// which would load the very workers being measured (and, against a
// deployment, needs them up and caught up). The history's event times are
// the server's clock, one clock for every run, and the same read counts
// the workflow task failures and activity retries the server recorded.
//
// A step is the time from one model request's start to the next's: from
// one CallModel ActivityTaskScheduled event to the next, and for the last
// request of a run, to the run's end. It thus covers the model request,
// the calls it asked for and the workflow tasks in between.

// modelActivity is the activity type of a model request.
const modelActivity = "CallModel"

// maxHistoryReaders bounds the histories read at once after the load.
const maxHistoryReaders = 16

// runHistory is what one run's history (every generation of it) says.
type runHistory struct {
	steps                []time.Duration
	workflowTaskFailures int
	activityRetries      int
}

// readHistories reads the histories of a sample of the ended runs (every
// one unless o.HistorySample is smaller) and adds the step latencies and
// the server's counts to r. A history that cannot be read is noted in
// r.Server.Unavailable and skipped.
func (l *loader) readHistories(ctx context.Context, r *Report) {
	var ended []outcome
	for _, o := range l.outcomes {
		if o.done && o.runID != "" {
			ended = append(ended, o)
		}
	}
	sample := sampleOf(ended, l.o.HistorySample)
	if len(sample) == 0 {
		return
	}
	if l.o.Progress != nil {
		fmt.Fprintf(l.o.Progress, "load: reading the histories of %d runs (step latencies, workflow task failures)\n", len(sample))
	}
	results := make([]runHistory, len(sample))
	errs := make([]error, len(sample))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(maxHistoryReaders, len(sample)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(sample) || ctx.Err() != nil {
					return
				}
				results[i], errs[i] = l.readHistory(ctx, sample[i], sample[i].kind == "")
			}
		})
	}
	wg.Wait()

	var steps []time.Duration
	for i, h := range results {
		if errs[i] != nil {
			r.Server.Unavailable = append(r.Server.Unavailable, fmt.Sprintf("history of %s: %v", sample[i].id, errs[i]))
			continue
		}
		r.Server.HistoriesRead++
		r.Server.WorkflowTaskFailures += h.workflowTaskFailures
		if h.workflowTaskFailures > 0 {
			r.Server.RunsWithTaskFailures++
		}
		r.Server.ActivityRetries += h.activityRetries
		steps = append(steps, h.steps...)
	}
	r.StepLatency = latencyOf(steps)
}

// sampleOf is n outcomes spread evenly over all of them (all when n is 0
// or not smaller), so a sample covers the start, the middle and the end
// of the load alike.
func sampleOf(all []outcome, n int) []outcome {
	if n <= 0 || n >= len(all) {
		return all
	}
	out := make([]outcome, n)
	for i := range out {
		out[i] = all[i*len(all)/n]
	}
	return out
}

// readHistory reads one run's history, generation by generation along its
// continue-as-new chain. Steps are kept only for a completed run
// (withSteps): a failed run's last step has no meaningful end.
func (l *loader) readHistory(ctx context.Context, o outcome, withSteps bool) (runHistory, error) {
	var h runHistory
	var requests []time.Time
	var end time.Time
	for runID := o.runID; runID != ""; {
		next := ""
		iter := l.c.GetWorkflowHistory(ctx, o.id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for iter.HasNext() {
			ev, err := iter.Next()
			if err != nil {
				return runHistory{}, err
			}
			switch ev.GetEventType() {
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
				if ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == modelActivity {
					requests = append(requests, ev.GetEventTime().AsTime())
				}
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
				h.activityRetries += max(int(ev.GetActivityTaskStartedEventAttributes().GetAttempt())-1, 0)
			case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
				h.workflowTaskFailures++
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
				next = ev.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
				end = ev.GetEventTime().AsTime()
			}
		}
		runID = next
	}
	if withSteps && !end.IsZero() {
		h.steps = stepsOf(requests, end)
	}
	return h, nil
}

// stepsOf are the intervals between the model requests' starts, the last
// one ending at end.
func stepsOf(requests []time.Time, end time.Time) []time.Duration {
	out := make([]time.Duration, 0, len(requests))
	for i, at := range requests {
		until := end
		if i+1 < len(requests) {
			until = requests[i+1]
		}
		out = append(out, until.Sub(at))
	}
	return out
}
