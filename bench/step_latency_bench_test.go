package bench

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/unstuck-dev/unstuck/workflows"
)

// Where a step's time goes (issue 29): each run's history says when every
// workflow task and activity was scheduled, started and completed, so a
// step splits into the server's dispatch (scheduled to started: matching
// and the worker's pollers) and the work itself (started to completed).

// FloorWorkflow is the server's floor: n round trips of an empty activity,
// each one workflow task and one activity task, nothing else.
func FloorWorkflow(ctx workflow.Context, n int) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	for range n {
		if err := workflow.ExecuteActivity(ctx, EmptyActivity).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

// EmptyActivity does nothing: what remains is the server's cost.
func EmptyActivity(context.Context) error { return nil }

// phases are a run's summed durations by phase, in milliseconds.
type phases map[string]float64

// breakdown reads a run's history into phases: "wft-dispatch" and
// "wft-work" for workflow tasks, "<activity>-dispatch" and "<activity>-run"
// for activities, and counts of each.
func breakdown(b *testing.B, workflowID string) (phases, map[string]int) {
	b.Helper()
	sum, count := phases{}, map[string]int{}
	at := map[int64]time.Time{}      // event id → when
	actType := map[int64]string{}    // scheduled event id → activity type
	started := map[int64]time.Time{} // scheduled event id → started
	eachEvent(b, workflowID, "", func(ev *historypb.HistoryEvent) {
		t := ev.GetEventTime().AsTime()
		at[ev.GetEventId()] = t
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			a := ev.GetWorkflowTaskStartedEventAttributes()
			sum["wft-dispatch"] += ms(t.Sub(at[a.GetScheduledEventId()]))
			count["wft"]++
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			a := ev.GetWorkflowTaskCompletedEventAttributes()
			sum["wft-work"] += ms(t.Sub(at[a.GetStartedEventId()]))
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			actType[ev.GetEventId()] = ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := ev.GetActivityTaskStartedEventAttributes()
			started[a.GetScheduledEventId()] = t
			name := actType[a.GetScheduledEventId()]
			sum[name+"-dispatch"] += ms(t.Sub(at[a.GetScheduledEventId()]))
			count[name]++
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			a := ev.GetActivityTaskCompletedEventAttributes()
			sum[actType[a.GetScheduledEventId()]+"-run"] += ms(t.Sub(started[a.GetScheduledEventId()]))
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			count["marker:"+ev.GetMarkerRecordedEventAttributes().GetMarkerName()]++
		}
	})
	return sum, count
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkStepBreakdown: a 20-step noop run of unstuck, the bare loop and
// the server floor, side by side; where each step's milliseconds go.
func BenchmarkStepBreakdown(b *testing.B) {
	const steps = 20
	type variant struct {
		name string
		run  func() (time.Duration, string)
	}
	start := func(workflowType string, arg any) (time.Duration, string) {
		runSeq++
		id := fmt.Sprintf("bench-breakdown-%s-%d-%d", workflowType, time.Now().UnixNano(), runSeq)
		t0 := time.Now()
		run, err := devClient.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}, workflowType, arg)
		if err != nil {
			b.Fatal(err)
		}
		if err := run.Get(context.Background(), nil); err != nil {
			b.Fatalf("%s: %v", id, err)
		}
		return time.Since(t0), id
	}
	variants := []variant{
		{"unstuck", func() (time.Duration, string) {
			return start(workflows.WorkflowName, agentInput(fmt.Sprintf("steps=%d", steps)))
		}},
		{"bare", func() (time.Duration, string) {
			return start("BareWorkflow", agentInput(fmt.Sprintf("steps=%d", steps)))
		}},
		// A step of the bare loop is two round trips: the model's and the tool's.
		{"floor", func() (time.Duration, string) { return start("FloorWorkflow", 2*steps) }},
	}
	for i := 0; i < b.N; i++ {
		for _, v := range variants {
			var wall time.Duration
			total, counts := phases{}, map[string]int{}
			for range rounds {
				d, id := v.run()
				wall += d
				p, c := breakdown(b, id)
				for k, x := range p {
					total[k] += x
				}
				for k, x := range c {
					counts[k] += x
				}
			}
			per := float64(rounds * steps)
			b.ReportMetric(ms(wall)/per, v.name+"-ms/step")
			keys := make([]string, 0, len(total))
			for k := range total {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			line := fmt.Sprintf("%-8s %6.1f ms/step:", v.name, ms(wall)/per)
			for _, k := range keys {
				line += fmt.Sprintf(" %s %.1f", k, total[k]/per)
			}
			line += fmt.Sprintf(" | per step: %.2f workflow tasks", float64(counts["wft"])/per)
			for _, k := range []string{"CallModel", "RunTool", "EmptyActivity"} {
				if counts[k] > 0 {
					line += fmt.Sprintf(", %.2f %s", float64(counts[k])/per, k)
				}
			}
			b.Log(line)
		}
	}
}
