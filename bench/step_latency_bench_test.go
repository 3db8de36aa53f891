package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
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
func breakdown(b *testing.B, workflowID string) (phases, map[string]int, []float64) {
	b.Helper()
	sum, count := phases{}, map[string]int{}
	var starts []time.Time           // a step starts when its model request (or the floor's first activity) is scheduled
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
			name := ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
			actType[ev.GetEventId()] = name
			if name == "CallModel" || (name == "EmptyActivity" && count["floor-activity"]%2 == 0) {
				starts = append(starts, t)
			}
			if name == "EmptyActivity" {
				count["floor-activity"]++
			}
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
	var steps []float64
	for i := 1; i < len(starts); i++ {
		steps = append(steps, ms(starts[i].Sub(starts[i-1])))
	}
	return sum, count, steps
}

// percentile is the p-th percentile (0-100) of xs, nearest rank.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	v := slices.Clone(xs)
	slices.Sort(v)
	i := int(math.Ceil(p/100*float64(len(v)))) - 1
	return v[max(i, 0)]
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
	variants := []variant{
		{"unstuck", func() (time.Duration, string) {
			return executeRun(b, workflows.WorkflowName, agentInput(fmt.Sprintf("steps=%d", steps)))
		}},
		// A step whose tool is remote: an HTTP tool, and an MCP tool over
		// HTTP (both normal activities).
		{"unstuck-http", func() (time.Duration, string) {
			return executeRun(b, workflows.WorkflowName, workflows.AgentInput{Agent: "echohttp", Task: fmt.Sprintf("echohttp %d", steps)})
		}},
		// The same HTTP tool marked local: true (fast and idempotent).
		{"unstuck-http-local", func() (time.Duration, string) {
			return executeRun(b, workflows.WorkflowName, workflows.AgentInput{Agent: "echohttplocal", Task: fmt.Sprintf("echohttplocal %d", steps)})
		}},
		{"unstuck-mcp", func() (time.Duration, string) {
			return executeRun(b, workflows.WorkflowName, workflows.AgentInput{Agent: "echomcpweb", Task: fmt.Sprintf("mcpweb__echo %d", steps)})
		}},
		{"bare", func() (time.Duration, string) {
			return executeRun(b, "BareWorkflow", agentInput(fmt.Sprintf("steps=%d", steps)))
		}},
		// A step of the bare loop is two round trips: the model's and the tool's.
		{"floor", func() (time.Duration, string) { return executeRun(b, "FloorWorkflow", 2*steps) }},
	}
	for i := 0; i < b.N; i++ {
		for _, v := range variants {
			var wall time.Duration
			total, counts := phases{}, map[string]int{}
			var perStep []float64
			for range rounds {
				d, id := v.run()
				wall += d
				p, c, st := breakdown(b, id)
				perStep = append(perStep, st...)
				for k, x := range p {
					total[k] += x
				}
				for k, x := range c {
					counts[k] += x
				}
			}
			per := float64(rounds * steps)
			b.ReportMetric(ms(wall)/per, v.name+"-ms/step")
			b.ReportMetric(percentile(perStep, 50), v.name+"-p50-ms")
			b.ReportMetric(percentile(perStep, 99), v.name+"-p99-ms")
			keys := make([]string, 0, len(total))
			for k := range total {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			line := fmt.Sprintf("%-18s %6.1f ms/step (p50 %.1f, p99 %.1f):", v.name, ms(wall)/per, percentile(perStep, 50), percentile(perStep, 99))
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
