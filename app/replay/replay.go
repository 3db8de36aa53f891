package replay

import (
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/interceptor"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/proto"

	"github.com/unstuck-dev/unstuck/app"
	"github.com/unstuck-dev/unstuck/internal/telemetry"
)

// History replays a history against this tree's workflow code under the
// workflow id it was recorded with: a run that forks (edit with fork:
// true) names its child after its own id, which the replayer's default id
// ("ReplayId") would change. Histories from before the started event
// carried the id replay under the default. It replays a copy: the SDK
// merges a run's search-attribute upserts into the started event of the
// history it replays, so hist stays as given, and can be replayed again.
func History(hist *historypb.History, logger tlog.Logger) error {
	hist = proto.Clone(hist).(*historypb.History)
	r, err := newReplayer()
	if err != nil {
		return err
	}
	var opts worker.ReplayWorkflowHistoryOptions
	if evs := hist.GetEvents(); len(evs) > 0 {
		opts.OriginalExecution.ID = evs[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowId()
	}
	return r.ReplayWorkflowHistoryWithOptions(logger, hist, opts)
}

// newReplayer is a replayer with the workflows and the interceptors the
// worker runs (the worker's client carries the tracing interceptor), so a
// replay runs the code a production worker runs.
func newReplayer() (worker.WorkflowReplayer, error) {
	tracing, err := telemetry.TracingInterceptor()
	if err != nil {
		return nil, err
	}
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
		Interceptors: []interceptor.WorkerInterceptor{tracing},
	})
	if err != nil {
		return nil, err
	}
	app.RegisterWorkflow(r)
	return r, nil
}
