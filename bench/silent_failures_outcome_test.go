package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/unstuck-dev/unstuck/signals"
	"github.com/unstuck-dev/unstuck/workflows"
)

// runToEnd runs n runs of in on queue as runAll does, and meanwhile ends
// each run the ladder hands to a person (default policies end in the human
// rung, which waits a day): handed says which. Those, under the defaults,
// are the end of a run that cannot go on alone.
func runToEnd(queue string, n int, in workflows.AgentInput, within time.Duration) (out []runOutcome, handed map[string]bool, wall time.Duration) {
	handed = map[string]bool{} // written by the watcher only, read after it ends
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		query := fmt.Sprintf("TaskQueue = '%s' AND ExecutionStatus = 'Running' AND %s = '%s'", queue, signals.AttrAgentPhase, signals.PhaseAwaitingHuman)
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Second):
			}
			ctx := context.Background()
			list, err := devClient.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, PageSize: int32(n)})
			if err != nil {
				continue
			}
			for _, e := range list.GetExecutions() {
				id := e.GetExecution().GetWorkflowId()
				handed[id] = true
				_ = devClient.TerminateWorkflow(ctx, id, "", "the benchmark: handed to a person")
			}
		}
	})
	out, wall = runAll(queue, n, in, within)
	close(stop)
	wg.Wait()
	return out, handed, wall
}

// silentSummary is a cell's figures, judged against the booking service.
type silentSummary struct {
	runs, correct, wrong, handed, other int
	why                                 string // how the first stopped or failed run ended
	modelPerRun, toolPerRun             float64
	twice, keyed                        int
	wall                                time.Duration
}

// silentHeader heads the table of silentSummary rows.
const silentHeader = "| shape | fault | lasts | check | correct | wrong output | to a person | stopped or failed | model req/run | tool req/run | runs booked twice | repeats answered by key | wall |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|"

func (s silentSummary) String() string {
	return fmt.Sprintf("%d%% | %d | %d | %d | %.1f | %.1f | %d | %d | %.0fs",
		100*s.correct/max(s.runs, 1), s.wrong, s.handed, s.other, s.modelPerRun, s.toolPerRun, s.twice, s.keyed, s.wall.Seconds())
}

// summarizeSilent judges each run by what the service holds: correct when
// it completed naming a booking the service made for it, wrong when it
// completed naming one the service does not have.
func summarizeSilent(svc *bookings, out []runOutcome, handed map[string]bool, modelRequests int, wall time.Duration) silentSummary {
	s := silentSummary{runs: len(out), wall: wall, modelPerRun: float64(modelRequests) / float64(len(out))}
	requests := 0
	for _, o := range out {
		n, performed, keyed, confs := svc.seen(o.id)
		requests += n
		s.keyed += keyed
		if performed > 1 {
			s.twice++
		}
		claim := claimed(o)
		switch {
		case handed[o.id]:
			s.handed++
		case o.err != nil || o.result.Status != workflows.ResultCompleted || claim == "":
			s.other++ // the ladder's stop (AgentStopped), or an end without a claim
			s.note(fmt.Sprintf("%s %v %s", o.result.Status, o.err, o.result.Reason))
		case confs[claim]:
			s.correct++
		default:
			s.wrong++
		}
	}
	s.toolPerRun = float64(requests) / float64(len(out))
	return s
}

// note keeps the first reason a run did not end with a booking.
func (s *silentSummary) note(why string) {
	if s.why == "" {
		s.why = why
	}
}

// claimed is the confirmation a run's output names, "" when none.
func claimed(o runOutcome) string {
	var out struct{ Room, Confirmation string }
	if json.Unmarshal(o.result.Output, &out) != nil || out.Confirmation == "" {
		return ""
	}
	if out.Room != bookRoom {
		return "wrong room: " + out.Room // claims a booking the service does not have
	}
	return out.Confirmation
}
