package activities

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
)

// ModelHeartbeatEvery is how often a model request heartbeats while it
// waits for the model (and, streamed, when no chunk arrives); the run's
// heartbeat timeout for it is a few times this
// (workflows/model.HeartbeatTimeout).
const ModelHeartbeatEvery = 2 * time.Second

// heartbeatEvery records a heartbeat every interval, with details(), until
// stop is called or ctx ends: a model may think for minutes, and a worker
// that died meanwhile must show as dead within the activity's heartbeat
// timeout, not its whole timeout. The SDK throttles what reaches the
// server to a little under the heartbeat timeout.
func heartbeatEvery(ctx context.Context, interval time.Duration, details func() any) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, details())
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}

// heartbeatWhileWaiting heartbeats a model request the run asked to
// heartbeat (it set a heartbeat timeout; runs recorded before that did
// not, and so are not sent heartbeats they do not read).
func heartbeatWhileWaiting(ctx context.Context) (stop func()) {
	if activity.GetInfo(ctx).HeartbeatTimeout <= 0 {
		return func() {}
	}
	return heartbeatEvery(ctx, ModelHeartbeatEvery, func() any { return nil })
}
