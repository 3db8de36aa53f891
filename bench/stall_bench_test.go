package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"

	"github.com/unstuck-dev/unstuck/internal/testdouble/scriptedmodel"
	"github.com/unstuck-dev/unstuck/workflows"
)

// stallBefore is the commit before model.stall (issue 51, stalls): its
// worker, which only has the model's timeout, is the "before" side of
// BenchmarkModelStall.
const stallBefore = "718ef71"

// stallRuns is the runs at once of each side: fewer than the worker's
// model breaker's failures (5), so the stalls do not open it.
const stallRuns = 3

// BenchmarkModelStall (issue 51, stalls): a provider that holds the
// connection open without a byte. Each run's first model request (a
// streamed reply: stream_calls) meets a model that sends its headers and
// then nothing; its retry is answered with final_output. stallRuns runs
// at once on a fresh worker process of this tree (default stall,
// first_byte 60s, and the default timeout 2m) beside the worker of
// stallBefore (the timeout alone), the same config. Reported per side:
// the runs completed, the time from a run's start to its end (median,
// longest), when the retry started after the request was first
// scheduled (the cut, plus the retry's 1 s backoff), and the class of the
// failure the retry followed.
func BenchmarkModelStall(b *testing.B) {
	now := buildWorker(b)
	before := buildWorkerAt(b, stallBefore)
	for range b.N {
		for _, side := range []struct{ name, bin string }{{"before (" + stallBefore + "): the model timeout, 2m", before}, {"now: the default stall, first_byte 60s", now}} {
			f := stallCell(b, side.bin)
			b.Logf("a provider silent on the first attempt, %d runs at once, %s: %d completed; a run %.1f s median, %.1f s longest; the retry started %.1f s after the request (median); the retry followed %s",
				stallRuns, side.name, f.completed, f.p50.Seconds(), f.max.Seconds(), f.retryAfter.Seconds(), f.class)
		}
	}
}

// stallFigures: runsFigures, when the request's retry started after it
// was scheduled (median), and the classes the retries followed.
type stallFigures struct {
	runsFigures
	retryAfter time.Duration
	class      string
}

// stallCell runs stallRuns runs at once on a fresh worker process (bin)
// whose model hangs on the first stallRuns requests.
func stallCell(b *testing.B, bin string) stallFigures {
	b.Helper()
	answer := scriptedmodel.Sequence(scriptedmodel.CallTurn("final_output", map[string]any{"answer": 42}))
	s := startScripted(b, bin, "stall", map[string]scriptedmodel.Script{"answers": answer}, func(modelURL string) string {
		return fmt.Sprintf(`
model: { base_url: %q, name: answers }
agents:
  - { name: patient, instructions: Answer., tools: [], stream_calls: true }
`, modelURL)
	})
	defer s.close()
	s.model.FailNextTurn(stallRuns, scriptedmodel.Turn{Fault: scriptedmodel.StreamStallsBeforeFirstByte})
	outcomes, wall := runAll(s.queue, stallRuns, workflows.AgentInput{Agent: "patient", Task: "the answer?"}, 10*time.Minute)
	f := stallFigures{runsFigures: summarizeRuns(outcomes, wall)}
	var retries []time.Duration
	classes := map[string]int{}
	for _, o := range outcomes {
		if o.err != nil {
			b.Logf("%s: %v", o.id, o.err)
		}
		if o.firstRunID == "" {
			continue
		}
		var scheduled time.Time
		eachEvent(b, o.id, o.firstRunID, func(ev *historypb.HistoryEvent) {
			if a := ev.GetActivityTaskScheduledEventAttributes(); a.GetActivityType().GetName() == "CallModel" && scheduled.IsZero() {
				scheduled = ev.GetEventTime().AsTime()
			}
			if a := ev.GetActivityTaskStartedEventAttributes(); a.GetAttempt() == 2 && a.GetLastFailure() != nil {
				retries = append(retries, ev.GetEventTime().AsTime().Sub(scheduled))
				lf := a.GetLastFailure()
				class := lf.GetApplicationFailureInfo().GetType()
				if i := strings.Index(lf.GetMessage(), ": "); i >= 0 {
					class += " (" + lf.GetMessage()[i+2:] + ")"
				}
				classes[class]++
			}
		})
	}
	f.retryAfter = time.Duration(medianBy(retries, func(d time.Duration) float64 { return float64(d) }))
	f.class = fmt.Sprint(classes)
	return f
}
