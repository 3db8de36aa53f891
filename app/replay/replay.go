package replay

import (
	historypb "go.temporal.io/api/history/v1"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/unstuck-dev/unstuck/app"
)

// History replays a history against this tree's workflow code under the
// workflow id it was recorded with: a run that forks (edit with fork:
// true) names its child after its own id, which the replayer's default id
// ("ReplayId") would change. Histories from before the started event
// carried the id replay under the default.
func History(hist *historypb.History, logger tlog.Logger) error {
	r := worker.NewWorkflowReplayer()
	app.RegisterWorkflow(r)
	var opts worker.ReplayWorkflowHistoryOptions
	if evs := hist.GetEvents(); len(evs) > 0 {
		opts.OriginalExecution.ID = evs[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowId()
	}
	return r.ReplayWorkflowHistoryWithOptions(logger, hist, opts)
}
