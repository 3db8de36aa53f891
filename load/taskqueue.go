package load

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// backlog is the task queue's backlog as the server counts it
// (ApproximateBacklogCount), for workflow and activity tasks.
type backlog struct{ workflow, activity int64 }

// queueFigures is what the server says of one type of the task queue.
type queueFigures struct {
	pollers int
	backlog int64
}

// describeQueue asks the server for the pollers and the backlog of one
// type of the load's task queue.
func describeQueue(ctx context.Context, c client.Client, o Options, t enumspb.TaskQueueType) (queueFigures, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := c.WorkflowService().DescribeTaskQueue(ctx, &workflowservice.DescribeTaskQueueRequest{
		Namespace:     o.Namespace,
		TaskQueue:     &taskqueuepb.TaskQueue{Name: o.TaskQueue, Kind: enumspb.TASK_QUEUE_KIND_NORMAL},
		TaskQueueType: t,
		ReportStats:   true,
	})
	if err != nil {
		return queueFigures{}, err
	}
	return queueFigures{pollers: len(resp.GetPollers()), backlog: resp.GetStats().GetApproximateBacklogCount()}, nil
}

// sampleBacklog reads both backlogs.
func sampleBacklog(ctx context.Context, c client.Client, o Options) (backlog, error) {
	wf, err := describeQueue(ctx, c, o, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil {
		return backlog{}, err
	}
	act, err := describeQueue(ctx, c, o, enumspb.TASK_QUEUE_TYPE_ACTIVITY)
	if err != nil {
		return backlog{}, err
	}
	return backlog{workflow: wf.backlog, activity: act.backlog}, nil
}

// waitForPollers waits until a worker polls the task queue for workflow
// tasks, so a load on a queue nobody serves fails at once, naming it,
// instead of starting runs that would wait forever.
func waitForPollers(ctx context.Context, c client.Client, o Options) error {
	deadline := time.Now().Add(o.PollerWait)
	for {
		q, err := describeQueue(ctx, c, o, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
		if err != nil {
			return fmt.Errorf("describe task queue %q: %w", o.TaskQueue, err)
		}
		if q.pollers > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no worker polls task queue %q in namespace %q (waited %s): start one (unstuck-worker --config agents.yaml --task-queue %s) or fix --task-queue",
				o.TaskQueue, o.Namespace, o.PollerWait, o.TaskQueue)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// finalServerFigures puts the task queue's pollers and backlog, as the
// load ends, into the report.
func (l *loader) finalServerFigures(ctx context.Context, r *Report) {
	wf, err := describeQueue(ctx, l.c, l.o, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err == nil {
		var act queueFigures
		if act, err = describeQueue(ctx, l.c, l.o, enumspb.TASK_QUEUE_TYPE_ACTIVITY); err == nil {
			r.Server.WorkflowPollers, r.Server.ActivityPollers = wf.pollers, act.pollers
			r.Server.WorkflowBacklog, r.Server.ActivityBacklog = wf.backlog, act.backlog
		}
	}
	if err != nil {
		r.Server.Unavailable = append(r.Server.Unavailable, "task queue description: "+err.Error())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r.Server.PeakWorkflowBacklog, r.Server.PeakActivityBacklog = l.peakBacklog.workflow, l.peakBacklog.activity
	if l.sampleErr != "" {
		r.Server.Unavailable = append(r.Server.Unavailable, "backlog samples: "+l.sampleErr)
	}
}
