package model

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// HeartbeatTimeout: a model request heartbeats every
// activities.ModelHeartbeatEvery while it waits for the model (and as a
// stream's chunks arrive), so a worker that died in the middle is found
// out in this long and the request retried on another, where without a
// heartbeat it would wait out the model's whole timeout (2 minutes and
// its margin by default).
const HeartbeatTimeout = 10 * time.Second

// WithHeartbeat asks a whole-reply model request (the step's or a
// repair's) to heartbeat. Streamed requests always did.
func (c *Call) WithHeartbeat(ctx workflow.Context, o workflow.ActivityOptions) workflow.ActivityOptions {
	if c.on(ctx, c.gates.ModelHeartbeat) {
		o.HeartbeatTimeout = HeartbeatTimeout
	}
	return o
}
