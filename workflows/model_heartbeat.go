package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// modelHeartbeatTimeout: a model request heartbeats every
// activities.ModelHeartbeatEvery while it waits for the model (and as a
// stream's chunks arrive), so a worker that died in the middle is found
// out in this long and the request retried on another, where without a
// heartbeat it would wait out the model's whole timeout (2 minutes and
// its margin by default).
const modelHeartbeatTimeout = 10 * time.Second

// withModelHeartbeat asks a whole-reply model request (the step's or a
// repair's) to heartbeat. Streamed requests always did.
func withModelHeartbeat(ctx workflow.Context, o workflow.ActivityOptions) workflow.ActivityOptions {
	if versionOf(ctx, versionModelHeartbeat, 1) >= 1 {
		o.HeartbeatTimeout = modelHeartbeatTimeout
	}
	return o
}
